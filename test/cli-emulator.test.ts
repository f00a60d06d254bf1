// `nubis admin faults|state|requests|events|webhooks` against a real server: each tool through
// the CLI, table and JSON output, exit codes, and a bad option in one line.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { exitCodes, runCli } from '@nubis/cli';
import { ADMIN_TOKEN, startTestInstance, type TestInstance } from './support/instance.ts';
import { createAccount, type TestAccount } from './support/accounts.ts';

let nubis: TestInstance;
let account: TestAccount;
let home: string;

before(async () => {
  nubis = await startTestInstance({ JOURNAL_SIZE: '100' });
  account = await createAccount(nubis);
  home = mkdtempSync(join(tmpdir(), 'nubis-cli-emulator-'));
});
after(async () => {
  await nubis.close();
  rmSync(home, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const sink = (key: 'stdout' | 'stderr') =>
    new Writable({
      write(chunk, _encoding, done) {
        out[key] += chunk;
        done();
      },
    });
  const code = await runCli(args, {
    stdout: sink('stdout'),
    stderr: sink('stderr'),
    env: { XDG_CONFIG_HOME: home, NUBIS_URL: nubis.url, NUBIS_TOKEN: account.token, ADMIN_TOKEN },
  });
  return { code, ...out };
}

async function json(args: string[]) {
  const run = await cli(['-o', 'json', ...args]);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

describe('nubis admin emulator tools', () => {
  test('faults: add, see it fire through a customer command, list, clear', async () => {
    const added = await json([
      'admin',
      'faults',
      'add',
      '--path',
      '/v1.3/ssh_key/list',
      '--status',
      '503',
      '--times',
      '1',
    ]);
    const failed = await cli(['ssh-key', 'list']);
    assert.notEqual(failed.code, 0, 'the customer command fails as the rule says');
    assert.equal(failed.stderr.trim().split('\n').length, 1, failed.stderr);
    assert.equal((await cli(['ssh-key', 'list'])).code, 0, 'the rule is used up');
    const table = await cli(['admin', 'faults', 'list']);
    assert.match(table.stdout, /^ID\s+MATCH\s+ACTION\s+REMAINING\s+FIRED/);
    assert.deepEqual(
      (await json(['admin', 'faults', 'list'])).faults.map((rule: { id: number; fired: number }) => [
        rule.id,
        rule.fired,
      ]),
      [[added.id, 1]],
    );
    assert.equal((await cli(['admin', 'faults', 'clear'])).code, 0);
    assert.deepEqual((await json(['admin', 'faults', 'list'])).faults, []);
    const none = await cli(['admin', 'faults', 'add', '--path', '/v1.3/x']);
    assert.equal(none.code, exitCodes.usage);
    assert.equal(none.stderr.trim().split('\n').length, 1);
  });

  test('state: save, list, export to a private file, load; requests and events', async () => {
    await json(['admin', 'state', 'save', 'cli-fixture']);
    assert.ok((await json(['admin', 'state', 'list'])).states.some((s: { name: string }) => s.name === 'cli-fixture'));
    const file = join(home, 'state.json');
    assert.equal((await cli(['admin', 'state', 'export', '--file', file])).code, 0);
    assert.equal(statSync(file).mode & 0o777, 0o600, 'an export holds sealed secrets: private');
    const loaded = await json(['admin', 'state', 'load', 'cli-fixture']);
    assert.ok(loaded.rows > 0);
    assert.equal((await json(['admin', 'state', 'import', file])).migrated.length, 0);
    assert.equal((await cli(['admin', 'state', 'load', 'no-such-state'])).code, exitCodes.notFound);

    await cli(['region', 'list']);
    const requests = await json(['admin', 'requests', '--path', '/v1.3/region/list', '--limit', '1']);
    assert.equal(requests.requests[0].path, '/v1.3/region/list');
    const events = await json(['admin', 'events', '--account', String(account.id)]);
    assert.ok(events.events.every((event: { account: number }) => event.account === account.id));
  });

  test('webhooks: add, list, remove; a bad option is one line and exit 2', async () => {
    const hook = await json([
      'admin',
      'webhooks',
      'add',
      account.email,
      'http://127.0.0.1:9/hooks',
      '--secret',
      'a-webhook-secret-0123456789',
    ]);
    const listed = await cli(['admin', 'webhooks', 'list', account.email]);
    assert.match(listed.stdout, /127\.0\.0\.1:9\/hooks/);
    assert.equal((await cli(['admin', 'webhooks', 'remove', account.email, String(hook.id)])).code, 0);
    const bad = await cli(['admin', 'webhooks', 'list', account.email, '--bogus']);
    assert.equal(bad.code, exitCodes.usage);
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
  });
});
