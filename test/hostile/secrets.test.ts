// Class 8 of issue 10: secrets at rest. After a session that registers, activates, resets a
// password, logs in with the temporary one, creates tokens (v1.3 and v1) and servers, no secret
// the API handed out (tokens, passwords, root passwords, the activation uuid, the temporary
// password) appears anywhere in a dump of every table of the database; on SQLite the data
// directory is 0700 and its files 0600; SECRET_KEY_FILE keeps the key out of DATA_DIR.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { startTestInstance, testDb, type TestInstance } from '../support/instance.ts';
import { activationUuidFromMail, login, registerBody, tempPasswordFromMail, uniqueEmail } from '../support/accounts.ts';
import { deployServer } from '../support/servers.ts';

let nubis: TestInstance;
before(async () => {
  nubis = await startTestInstance();
});
after(async () => {
  await nubis.close();
});

/** Every string under a key that names a secret, anywhere in an answer. */
function secretsIn(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) for (const item of value) secretsIn(item, into);
  else if (value && typeof value === 'object')
    for (const [key, inner] of Object.entries(value)) {
      if (typeof inner === 'string' && /token|password|secret|key$/i.test(key) && inner.length >= 8) into.add(inner);
      else secretsIn(inner, into);
    }
}

async function dump(nubis: TestInstance): Promise<string> {
  if (testDb === 'sqlite') {
    const database = new DatabaseSync(join(nubis.config.dataDir, 'nubis.db'), { readOnly: true });
    try {
      const tables = database
        .prepare("select name from sqlite_master where type = 'table'")
        .all()
        .map((row) => String(row.name));
      assert.ok(tables.length > 10, `only ${tables.length} tables`);
      return tables.map((table) => JSON.stringify(database.prepare(`select * from "${table}"`).all())).join('\n');
    } finally {
      database.close();
    }
  }
  const url = new URL(nubis.config.databaseUrl ?? '');
  const schema = /search_path=(\w+)/.exec(decodeURIComponent(url.search))?.[1];
  assert.ok(schema, 'the test schema');
  const client = new pg.Client({ connectionString: nubis.config.databaseUrl ?? '' });
  await client.connect();
  try {
    const tables = await client.query(
      "select table_name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE'",
      [schema],
    );
    assert.ok(tables.rows.length > 10, `only ${tables.rows.length} tables`);
    const parts: string[] = [];
    for (const { table_name: table } of tables.rows)
      parts.push(JSON.stringify((await client.query(`select * from "${schema}"."${table}"`)).rows));
    return parts.join('\n');
  } finally {
    await client.end();
  }
}

test('no secret handed out by the API appears in a dump of the database', async () => {
  const secrets = new Set<string>();
  const body = registerBody();
  secrets.add(String(body.password));
  const registered = await nubis.request('POST', '/v1.3/account/register', { body });
  assert.equal(registered.status, 201);
  secretsIn(registered.body, secrets);
  const email = String(body.email);

  const activationUuid = await activationUuidFromMail(nubis, email);
  secrets.add(activationUuid);
  assert.equal((await nubis.request('PUT', '/v1.3/account/activate', { body: { uuid: activationUuid } })).status, 202);
  const info = await nubis.request('GET', '/v1.3/account/info', { token: registered.body.token });
  assert.equal((await nubis.admin('POST', `/admin/accounts/${info.body.id}/credit`, { amount: 100 })).status, 201);

  assert.equal((await nubis.request('PATCH', '/v1.3/account/reset', { body: { email } })).status < 300, true);
  const temporary = await tempPasswordFromMail(nubis, email);
  secrets.add(temporary);
  const token = await login(nubis, email, temporary);
  secrets.add(token);

  for (const name of ['ci', 'deploy']) {
    const created = await nubis.request('POST', '/v1.3/account/token_create', { token, body: { name } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    secretsIn(created.body, secrets);
  }
  const key = await nubis.request('GET', '/v1/account/createkey', { token });
  assert.equal(key.status, 200);
  secretsIn(key.body, secrets);
  secrets.add(String(key.body.message));

  for (const hostname of ['a.example.com', 'b.example.com']) {
    const created = await deployServer(nubis, token, { hostname });
    secretsIn(created, secrets);
    const shown = await nubis.request('GET', `/v1.3/server/info/${created.id}`, { token });
    secretsIn(shown.body, secrets);
  }
  const newPassword = `pw-new-${uniqueEmail().slice(5, 15)}`;
  secrets.add(newPassword);
  await nubis.request('PATCH', '/v1.3/account/update', { token, body: { password: newPassword } });

  // Tokens, the account password, the temporary one, the activation uuid, root passwords.
  assert.ok(secrets.size >= 9, `only ${secrets.size} secrets collected: ${[...secrets].join(' ')}`);
  const everything = await dump(nubis);
  for (const secret of secrets) assert.ok(!everything.includes(secret), `"${secret}" is stored in plain text`);
  // The mails are still readable through the operator API, and still name their secrets.
  assert.match(
    JSON.stringify((await nubis.admin('GET', `/admin/outbox?to=${encodeURIComponent(email)}`)).body),
    new RegExp(temporary),
  );
});

test('the data directory is 0700 and its files 0600; SECRET_KEY_FILE keeps the key apart', async () => {
  const mode = (path: string) => statSync(path).mode & 0o777;
  const dataDir = nubis.config.dataDir;
  assert.equal(mode(dataDir).toString(8), '700');
  const files = readdirSync(dataDir);
  assert.ok(files.includes('secret.key'));
  if (testDb === 'sqlite') assert.ok(files.includes('nubis.db'));
  for (const file of files) assert.equal(mode(join(dataDir, file)).toString(8), '600', file);

  const keyDir = mkdtempSync(join(tmpdir(), 'nubis-key-'));
  const keyFile = join(keyDir, 'private', 'nubis.key');
  const apart = await startTestInstance({ SECRET_KEY_FILE: keyFile });
  try {
    assert.ok(existsSync(keyFile), 'the key is created where SECRET_KEY_FILE says');
    assert.equal(mode(keyFile).toString(8), '600');
    assert.equal(mode(join(keyDir, 'private')).toString(8), '700');
    assert.ok(!readdirSync(apart.config.dataDir).includes('secret.key'), 'no key in DATA_DIR');
    assert.equal((await apart.request('POST', '/v1.3/account/register', { body: registerBody() })).status, 201);
  } finally {
    await apart.close();
    rmSync(keyDir, { recursive: true, force: true });
  }
});
