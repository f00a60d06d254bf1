// Black-box tests of SSH keys: list, create (real keys from node:crypto, fingerprints checked
// against ssh-keygen), rename, remove, and every refusal.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sshpk from 'sshpk';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer, serverInfo } from '../../test/support/servers.ts';
import type { HttpResult } from '../../test/support/instance.ts';

let nubis: TestInstance;
let alice: TestAccount;
let bob: TestAccount;
let scratch: string;

before(async () => {
  nubis = await startTestInstance();
  [alice, bob] = await Promise.all([createAccount(nubis), createAccount(nubis)]);
  scratch = mkdtempSync(join(tmpdir(), 'nubis-ssh-'));
});
after(async () => {
  await nubis.close();
  rmSync(scratch, { recursive: true, force: true });
});

type KeySpec =
  | { kind: 'rsa'; bits: number }
  | { kind: 'ec'; curve: 'P-256' | 'P-384' | 'P-521' }
  | { kind: 'ed25519' }
  | { kind: 'dsa' };

/** A fresh key pair from node:crypto, its public half as an OpenSSH line. */
function publicKeyLine(spec: KeySpec, comment = 'test@nubis'): string {
  const { publicKey } =
    spec.kind === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: spec.bits })
      : spec.kind === 'ec'
        ? generateKeyPairSync('ec', { namedCurve: spec.curve })
        : spec.kind === 'dsa'
          ? generateKeyPairSync('dsa', { modulusLength: 1024, divisorLength: 160 })
          : generateKeyPairSync('ed25519');
  const key = sshpk.parseKey(publicKey.export({ type: 'spki', format: 'pem' }), 'pem');
  key.comment = comment;
  return key.toString('ssh');
}

function sshKeygenFingerprint(line: string): string {
  const file = join(scratch, `key-${Math.random().toString(16).slice(2)}.pub`);
  writeFileSync(file, `${line}\n`);
  const output = execFileSync('ssh-keygen', ['-lf', file], { encoding: 'utf8' });
  const match = /(SHA256:[A-Za-z0-9+/]+)/.exec(output);
  assert.ok(match, `ssh-keygen printed no SHA256 fingerprint: ${output}`);
  return match[1]!;
}

/** The blob of a key line, and a line rebuilt from a (modified) blob. */
const blobOf = (line: string) => Buffer.from(line.split(' ')[1]!, 'base64');
const lineOf = (type: string, blob: Buffer) => `${type} ${blob.toString('base64')}`;

function sshString(value: Buffer | string): Buffer {
  const data = Buffer.from(value);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return Buffer.concat([length, data]);
}

const create = (account: TestAccount, body: unknown) =>
  nubis.request('POST', '/v1.3/ssh_key/create', { token: account.token, body });
const list = async (account: TestAccount) => {
  const result = await nubis.request('GET', '/v1.3/ssh_key/list', { token: account.token });
  assert.equal(result.status, 200);
  return result.body.ssh_keys as {
    id: number;
    uuid: string;
    name: string;
    data: string;
    fingerprint: string;
    created: string;
  }[];
};

function assertRefusesPublicKey(
  result: HttpResult<{ errors: { field: string; reason: string }[] }>,
  reason: RegExp,
): void {
  assert.equal(result.status, 400, JSON.stringify(result.body));
  assert.deepEqual(
    result.body.errors.map((e) => e.field),
    ['public_key'],
  );
  assert.match(result.body.errors[0].reason, reason);
}

describe('create', () => {
  const cases: [string, KeySpec, string, string][] = [
    ['RSA 2048', { kind: 'rsa', bits: 2048 }, 'ssh-rsa', 'RSA'],
    ['ECDSA P-256', { kind: 'ec', curve: 'P-256' }, 'ecdsa-sha2-nistp256', 'ECDSA'],
    ['ECDSA P-384', { kind: 'ec', curve: 'P-384' }, 'ecdsa-sha2-nistp384', 'ECDSA'],
    ['ECDSA P-521', { kind: 'ec', curve: 'P-521' }, 'ecdsa-sha2-nistp521', 'ECDSA'],
    ['Ed25519 (extension)', { kind: 'ed25519' }, 'ssh-ed25519', 'ED25519'],
  ];
  for (const [label, spec, type] of cases) {
    test(`${label}: 201 with the fingerprint ssh-keygen -lf prints, listed with its data`, async () => {
      const line = publicKeyLine(spec, `${label.replace(/\W+/g, '-')}@laptop`);
      assert.ok(line.startsWith(`${type} `));
      const result = await create(alice, { name: label, public_key: line });
      assert.equal(result.status, 201, JSON.stringify(result.body));
      assert.deepEqual(Object.keys(result.body).sort(), ['created', 'fingerprint', 'name', 'uuid']);
      assert.equal(result.body.name, label);
      assert.match(result.body.uuid, /^[0-9a-f-]{36}$/);
      assert.match(result.body.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal(result.body.fingerprint, sshKeygenFingerprint(line));

      const listed = (await list(alice)).find((key) => key.uuid === result.body.uuid);
      assert.ok(listed);
      assert.equal(listed.data, line);
      assert.equal(listed.fingerprint, result.body.fingerprint);
      assert.equal(listed.created, result.body.created);
    });
  }

  test('DSA (ssh-dss) is accepted with its SHA256 fingerprint', async () => {
    const line = publicKeyLine({ kind: 'dsa' });
    const result = await create(alice, { name: 'old dsa', public_key: line });
    assert.equal(result.status, 201, JSON.stringify(result.body));
    const expected = sshpk.parseKey(line, 'ssh').fingerprint('sha256').toString();
    assert.equal(result.body.fingerprint, expected);
  });

  test('surrounding whitespace and a missing comment are fine; the stored line is normalised', async () => {
    const line = publicKeyLine({ kind: 'ed25519' }).split(' ').slice(0, 2).join(' ');
    const result = await create(alice, { name: 'bare', public_key: `\n  ${line.replace(' ', '\t')}  \n` });
    assert.equal(result.status, 201, JSON.stringify(result.body));
    assert.equal((await list(alice)).find((key) => key.uuid === result.body.uuid)?.data, line);
  });

  test('an RSA key below 2048 bits is refused naming public_key', async () => {
    assertRefusesPublicKey(
      await create(alice, { name: 'weak', public_key: publicKeyLine({ kind: 'rsa', bits: 1024 }) }),
      /at least 2048 bits/,
    );
  });

  test('a blob whose inner type differs from the prefix is refused', async () => {
    const ed25519 = publicKeyLine({ kind: 'ed25519' });
    assertRefusesPublicKey(
      await create(alice, { name: 'liar', public_key: ed25519.replace(/^ssh-ed25519/, 'ssh-rsa') }),
      /ssh-ed25519 key, not ssh-rsa/,
    );
    const p256 = publicKeyLine({ kind: 'ec', curve: 'P-256' });
    assertRefusesPublicKey(
      await create(alice, { name: 'liar', public_key: p256.replace(/^ecdsa-sha2-nistp256/, 'ecdsa-sha2-nistp384') }),
      /not ecdsa-sha2-nistp384/,
    );
  });

  test('an ECDSA key whose curve name inside the blob disagrees with its type is refused', async () => {
    const p256 = blobOf(publicKeyLine({ kind: 'ec', curve: 'P-256' }));
    // type string, then the curve identifier "nistp256": rename the curve only.
    const forged = Buffer.from(p256);
    const curveAt = 4 + 'ecdsa-sha2-nistp256'.length + 4;
    forged.write('nistp384', curveAt, 'latin1');
    assertRefusesPublicKey(
      await create(alice, { name: 'forged', public_key: lineOf('ecdsa-sha2-nistp256', forged) }),
      /malformed|not a valid|canonical/,
    );
  });

  test('an ECDSA point off its curve is refused', async () => {
    const blob = Buffer.from(blobOf(publicKeyLine({ kind: 'ec', curve: 'P-256' })));
    blob[blob.length - 1]! ^= 1;
    assertRefusesPublicKey(
      await create(alice, { name: 'off curve', public_key: lineOf('ecdsa-sha2-nistp256', blob) }),
      /not a valid public key/,
    );
  });

  test('trailing bytes after the key, or a truncated key, are refused', async () => {
    const blob = blobOf(publicKeyLine({ kind: 'ed25519' }));
    assertRefusesPublicKey(
      await create(alice, {
        name: 'long',
        public_key: lineOf('ssh-ed25519', Buffer.concat([blob, sshString('extra')])),
      }),
      /malformed|canonical/,
    );
    assertRefusesPublicKey(
      await create(alice, { name: 'short', public_key: lineOf('ssh-ed25519', blob.subarray(0, blob.length - 5)) }),
      /malformed/,
    );
  });

  test('malformed text, base64 junk, unsupported and empty types are 400s naming public_key', async () => {
    const good = publicKeyLine({ kind: 'ed25519' });
    assertRefusesPublicKey(await create(alice, { name: 'x', public_key: 'not a key' }), /unsupported key type "not"/);
    assertRefusesPublicKey(await create(alice, { name: 'x', public_key: 'ssh-ed25519' }), /OpenSSH public key/);
    assertRefusesPublicKey(
      await create(alice, { name: 'x', public_key: 'ssh-ed25519 AAAA' }),
      /truncated or malformed/,
    );
    assertRefusesPublicKey(
      await create(alice, { name: 'x', public_key: good.replace(' AAAA', ' A*AA') }),
      /OpenSSH public key/,
    );
    assertRefusesPublicKey(await create(alice, { name: 'x', public_key: `${good}\n${good}` }), /one line/);
    assertRefusesPublicKey(
      await create(alice, { name: 'x', public_key: good.replace(/^ssh-ed25519/, 'ssh-curve25519') }),
      /unsupported key type/,
    );
    const sk = lineOf(
      'sk-ssh-ed25519@openssh.com',
      Buffer.concat([sshString('sk-ssh-ed25519@openssh.com'), sshString(Buffer.alloc(32, 1)), sshString('ssh:')]),
    );
    assertRefusesPublicKey(await create(alice, { name: 'x', public_key: sk }), /unsupported key type/);
  });

  test('a missing or empty name and a missing key are named in one 400', async () => {
    const result = await create(alice, { name: '' });
    assert.equal(result.status, 400);
    assert.deepEqual(result.body.errors.map((e: { field: string }) => e.field).sort(), ['name', 'public_key']);
  });

  test('the same key twice in one account is a 409 naming the stored key, even with another comment', async () => {
    const line = publicKeyLine({ kind: 'ed25519' }, 'first');
    const first = await create(alice, { name: 'once', public_key: line });
    assert.equal(first.status, 201);
    const again = await create(alice, { name: 'twice', public_key: line.replace(/ first$/, ' second') });
    assert.equal(again.status, 409);
    assert.equal(again.body.errors.response, '409 Conflict');
    assert.match(again.body.errors.reason, new RegExp(`already stored.*"once".*${first.body.uuid}`));
    assert.equal((await list(alice)).filter((key) => key.fingerprint === first.body.fingerprint).length, 1);

    const elsewhere = await create(bob, { name: 'bob has it too', public_key: line });
    assert.equal(elsewhere.status, 201);
    assert.equal(elsewhere.body.fingerprint, first.body.fingerprint);
  });
});

describe('list', () => {
  test("shows only the caller's keys, oldest first", async () => {
    const carol = await createAccount(nubis);
    assert.deepEqual(await list(carol), []);
    const a = await create(carol, { name: 'a', public_key: publicKeyLine({ kind: 'ed25519' }) });
    const b = await create(carol, { name: 'b', public_key: publicKeyLine({ kind: 'ec', curve: 'P-256' }) });
    const keys = await list(carol);
    assert.deepEqual(
      keys.map((k) => k.uuid),
      [a.body.uuid, b.body.uuid],
    );
    assert.deepEqual(Object.keys(keys[0]!).sort(), ['created', 'data', 'fingerprint', 'id', 'name', 'uuid']);
    assert.ok(!(await list(alice)).some((k) => k.uuid === a.body.uuid));
  });

  test('needs a token', async () => {
    assert.equal((await nubis.request('GET', '/v1.3/ssh_key/list')).status, 401);
    assert.equal(
      (
        await nubis.request('POST', '/v1.3/ssh_key/create', {
          body: { name: 'x', public_key: publicKeyLine({ kind: 'ed25519' }) },
        })
      ).status,
      401,
    );
  });
});

describe('rename', () => {
  const rename = (account: TestAccount, body: unknown) =>
    nubis.request('PATCH', '/v1.3/ssh_key/rename', { token: account.token, body });

  test('by uuid, by integer id and by numeric string id', async () => {
    const created = await create(alice, { name: 'before', public_key: publicKeyLine({ kind: 'ed25519' }) });
    const id = (await list(alice)).find((k) => k.uuid === created.body.uuid)!.id;

    const byUuid = await rename(alice, { uuid: created.body.uuid, name: 'by uuid' });
    assert.equal(byUuid.status, 202);
    assert.deepEqual(byUuid.body, { success: { response: '202 Accepted', reason: '' } });
    assert.equal((await list(alice)).find((k) => k.id === id)?.name, 'by uuid');

    assert.equal((await rename(alice, { id, name: 'by id' })).status, 202);
    assert.equal((await list(alice)).find((k) => k.id === id)?.name, 'by id');
    assert.equal((await rename(alice, { id: String(id), name: 'by string id' })).status, 202);
    assert.equal((await list(alice)).find((k) => k.id === id)?.name, 'by string id');
    assert.equal((await rename(alice, { uuid: created.body.uuid, id, name: 'both' })).status, 202);
    assert.equal((await list(alice)).find((k) => k.id === id)?.name, 'both');
  });

  test("uuid and id naming different keys, an unknown key, and another account's key are 404s", async () => {
    const mine = await create(alice, { name: 'mine', public_key: publicKeyLine({ kind: 'ed25519' }) });
    const other = await create(alice, { name: 'other', public_key: publicKeyLine({ kind: 'ed25519' }) });
    const otherId = (await list(alice)).find((k) => k.uuid === other.body.uuid)!.id;
    const bobs = await create(bob, { name: 'bob', public_key: publicKeyLine({ kind: 'ed25519' }) });
    const bobsId = (await list(bob)).find((k) => k.uuid === bobs.body.uuid)!.id;

    const mixed = await rename(alice, { uuid: mine.body.uuid, id: otherId, name: 'nope' });
    assert.equal(mixed.status, 404);
    assert.equal(mixed.body.errors.response, '404 Not Found');
    assert.equal((await rename(alice, { uuid: '00000000-0000-4000-8000-000000000000', name: 'nope' })).status, 404);
    const foreign = await rename(alice, { uuid: bobs.body.uuid, name: 'stolen' });
    const foreignById = await rename(alice, { id: bobsId, name: 'stolen' });
    assert.equal(foreign.status, 404);
    assert.equal(foreignById.status, 404);
    assert.deepEqual(foreign.body, mixed.body);
    assert.equal((await list(bob)).find((k) => k.uuid === bobs.body.uuid)?.name, 'bob');
    assert.equal((await list(alice)).find((k) => k.uuid === mine.body.uuid)?.name, 'mine');
  });

  test('naming no key, or no name, is a 400 naming the field', async () => {
    const noKey = await rename(alice, { name: 'x' });
    assert.equal(noKey.status, 400);
    assert.deepEqual(
      noKey.body.errors.map((e: { field: string }) => e.field),
      ['uuid'],
    );
    const noName = await rename(alice, { uuid: '00000000-0000-4000-8000-000000000000' });
    assert.equal(noName.status, 400);
    assert.deepEqual(
      noName.body.errors.map((e: { field: string }) => e.field),
      ['name'],
    );
    const badRef = await rename(alice, { uuid: 'not-a-uuid', name: 'x' });
    assert.equal(badRef.status, 400);
    assert.deepEqual(
      badRef.body.errors.map((e: { field: string }) => e.field),
      ['uuid'],
    );
  });
});

describe('remove', () => {
  const remove = (account: TestAccount, ref: string | number) =>
    nubis.request('DELETE', `/v1.3/ssh_key/remove/${ref}`, { token: account.token });

  test('by uuid and by id: 204, gone from the list, then 404', async () => {
    const a = await create(alice, { name: 'a', public_key: publicKeyLine({ kind: 'ed25519' }) });
    const b = await create(alice, { name: 'b', public_key: publicKeyLine({ kind: 'ed25519' }) });
    const bId = (await list(alice)).find((k) => k.uuid === b.body.uuid)!.id;

    const removed = await remove(alice, a.body.uuid);
    assert.equal(removed.status, 204);
    assert.equal(removed.body, null);
    assert.equal((await remove(alice, bId)).status, 204);
    const left = await list(alice);
    assert.ok(!left.some((k) => k.uuid === a.body.uuid || k.uuid === b.body.uuid));
    assert.equal((await remove(alice, a.body.uuid)).status, 404);
    assert.equal((await remove(alice, 'garbage')).status, 404);
  });

  test('the same key can be stored again once removed', async () => {
    const line = publicKeyLine({ kind: 'ed25519' });
    const first = await create(alice, { name: 'first', public_key: line });
    assert.equal((await remove(alice, first.body.uuid)).status, 204);
    assert.equal((await create(alice, { name: 'again', public_key: line })).status, 201);
  });

  test("another account's key answers 404 and stays", async () => {
    const bobs = await create(bob, { name: 'bob keeps', public_key: publicKeyLine({ kind: 'ed25519' }) });
    const bobsId = (await list(bob)).find((k) => k.uuid === bobs.body.uuid)!.id;
    const byUuid = await remove(alice, bobs.body.uuid);
    assert.equal(byUuid.status, 404);
    assert.equal((await remove(alice, bobsId)).status, 404);
    assert.ok((await list(bob)).some((k) => k.uuid === bobs.body.uuid));
  });
});

describe('permissions', () => {
  test('an account not activated may list but not create or remove (403)', async () => {
    const dormant = await createAccount(nubis, { activate: false });
    assert.equal((await nubis.request('GET', '/v1.3/ssh_key/list', { token: dormant.token })).status, 200);
    const refused = await create(dormant, { name: 'x', public_key: publicKeyLine({ kind: 'ed25519' }) });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.errors.response, '403 Forbidden');
  });

  test('without the ssh_keys permission: create and remove are 403, rename still works', async () => {
    const account = await createAccount(nubis);
    const created = await create(account, { name: 'kept', public_key: publicKeyLine({ kind: 'ed25519' }) });
    assert.equal(created.status, 201);
    const patched = await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { permissions: { ssh_keys: false } });
    assert.equal(patched.status, 200);

    const refused = await create(account, { name: 'x', public_key: publicKeyLine({ kind: 'ed25519' }) });
    assert.equal(refused.status, 403);
    assert.match(refused.body.errors.reason, /ssh_keys/);
    assert.equal(
      (await nubis.request('DELETE', `/v1.3/ssh_key/remove/${created.body.uuid}`, { token: account.token })).status,
      403,
    );
    assert.equal(
      (
        await nubis.request('PATCH', '/v1.3/ssh_key/rename', {
          token: account.token,
          body: { uuid: created.body.uuid, name: 'renamed' },
        })
      ).status,
      202,
    );
    assert.equal((await list(account)).find((k) => k.uuid === created.body.uuid)?.name, 'renamed');
  });
});

describe('keys on servers', () => {
  test('a key given at server create is recorded on the server (info.ssh_key_id); removing the key unsets it there', async () => {
    const account = await createAccount(nubis);
    const key = await create(account, { name: 'deploy', public_key: publicKeyLine({ kind: 'ed25519' }) });
    assert.equal(key.status, 201);
    const keyId = (await list(account)).find((k) => k.uuid === key.body.uuid)!.id;

    const withKey = await deployServer(nubis, account.token, { ssh_key: key.body.uuid });
    assert.equal(withKey.info.ssh_key_id, keyId);
    assert.equal((await serverInfo(nubis, account.token, withKey.id)).info.ssh_key_id, keyId);
    const withoutKey = await deployServer(nubis, account.token);
    assert.equal((await serverInfo(nubis, account.token, withoutKey.id)).info.ssh_key_id, null);

    assert.equal(
      (await nubis.request('DELETE', `/v1.3/ssh_key/remove/${keyId}`, { token: account.token })).status,
      204,
    );
    assert.equal((await serverInfo(nubis, account.token, withKey.id)).info.ssh_key_id, null);
  });

  test("another account's key cannot be given at server create (404)", async () => {
    const bobs = await create(bob, { name: 'bob', public_key: publicKeyLine({ kind: 'ed25519' }) });
    const result = await nubis.request('POST', '/v1.3/server/create', {
      token: alice.token,
      body: { hostname: 'a.example.com', label: 'a', region: 101, image: 1001, plan: 1, ssh_key: bobs.body.uuid },
    });
    assert.equal(result.status, 404);
  });
});
