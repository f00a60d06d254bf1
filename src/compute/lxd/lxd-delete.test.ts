// An instance LXD refuses to delete (LXD 5.0, its daemon killed during the create, keeps a record
// whose btrfs volume it never made): the driver's error, which becomes the operator's engine_error,
// names the instance and the way out, checked against an engine stand-in on a unix socket.

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../config.ts';
import { LxdClient } from './lxd-client.ts';
import { LxdDriver } from './lxd-driver.ts';

const dir = mkdtempSync(join(tmpdir(), 'nubis-delete-'));
const socketPath = join(dir, 'lxd.socket');
const uuid = randomUUID();
const name = `nubis-${uuid}`;
const refusal = 'Error deleting storage volume: Could not get subvolume flags: Invalid argument';

function answer(res: ServerResponse, status: number, metadata: unknown, error = ''): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  const type = status >= 400 ? 'error' : 'sync';
  res.end(JSON.stringify({ type, status_code: status, error_code: status >= 400 ? status : 0, error, metadata }));
}

const http = createServer((req: IncomingMessage, res: ServerResponse) => {
  const path = decodeURIComponent(req.url ?? '');
  if (path === '/1.0') return answer(res, 200, { api_version: '1.0', environment: { server_clustered: false } });
  if (req.method === 'GET' && path === `/1.0/instances/${name}`) return answer(res, 200, { name, config: {} });
  if (req.method === 'GET' && path === `/1.0/instances/${name}/state`) return answer(res, 200, { status: 'Stopped' });
  if (req.method === 'DELETE' && path === `/1.0/instances/${name}`) return answer(res, 500, null, refusal);
  return answer(res, 404, null, 'Instance not found');
});

before(() => new Promise<void>((resolve) => http.listen(socketPath, resolve)));
after(async () => {
  await new Promise((resolve) => http.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

test("a removal the engine refuses names the instance, the engine's reason and the way out", async () => {
  const config = loadConfig({ COMPUTE_DRIVER: 'lxd', LXD_URL: socketPath, DATA_DIR: dir, LOG_LEVEL: 'silent' });
  const driver = new LxdDriver(config, new LxdClient({ url: socketPath }));
  try {
    await assert.rejects(
      driver.converge(uuid, null, 0, async () => ({ regions: [], servers: async function* () {} })),
      (error: Error) => {
        assert.match(error.message, new RegExp(`refused to delete instance ${name}`));
        assert.ok(error.message.includes(refusal), error.message);
        assert.match(error.message, /storage volume may never have been made/);
        assert.match(error.message, /docs\/lxd\.md/);
        return true;
      },
    );
  } finally {
    driver.close();
  }
});
