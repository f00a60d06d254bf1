// An option the region stops offering (the operator's catalog withdraws it, or a real engine has
// nothing behind it) stops being billed and is shown off, from the next start on.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { startTestInstance, type TestInstance, testStorageEnv } from '../../test/support/instance.ts';
import { deployServer, serverInfo } from '../../test/support/servers.ts';

const storage = await testStorageEnv();
after(() => storage.cleanup());

function catalogWithoutDdos(): string {
  const catalog = JSON.parse(readFileSync(new URL('../catalog/catalog.json', import.meta.url), 'utf8'));
  for (const region of catalog.regions) region.features.ddos_protection = false;
  const file = join(mkdtempSync(join(tmpdir(), 'nubis-catalog-')), 'catalog.json');
  writeFileSync(file, JSON.stringify(catalog));
  return file;
}

test('DDoS protection the region no longer offers stops being billed and shows off', async () => {
  const ddosItems = async (nubis: TestInstance, token: string) =>
    (await nubis.request('GET', '/v1.3/invoice/list', { token })).body.invoices.filter(
      (item: { resource_type: string }) => item.resource_type === 'ddos_protection',
    );
  const protects = async (nubis: TestInstance, token: string, id: number) =>
    (await serverInfo(nubis, token, id)).info.features.includes('ddos_protection');

  const first = await startTestInstance(storage.env);
  let account: TestAccount;
  let guarded: { id: number; uuid: string };
  let plain: { id: number; uuid: string };
  try {
    account = await createAccount(first);
    guarded = await deployServer(first, account.token, { ddos_protection: true });
    plain = await deployServer(first, account.token, { hostname: 'plain.example.com' });
    assert.deepEqual(
      (await ddosItems(first, account.token)).map((item: { active: number }) => item.active),
      [1],
    );
    assert.equal(await protects(first, account.token, guarded.id), true);
  } finally {
    await first.close();
  }

  const second = await startTestInstance({ ...storage.env, CATALOG_FILE: catalogWithoutDdos() });
  try {
    const items = await ddosItems(second, account.token);
    assert.deepEqual(
      items.map((item: { active: number; resource_id: string }) => [item.resource_id, item.active]),
      [[guarded.uuid, 0]],
    );
    for (const server of [guarded, plain]) assert.equal(await protects(second, account.token, server.id), false);
  } finally {
    await second.close();
  }
});
