// The first-boot script's outcome on real servers: script_url points at scripts served on the
// region bridge's host address (the only address besides loopback this suite sends traffic to);
// the API shows that each ran, its exit status and its output's last lines, or that it could not
// be fetched, and a `server.script` event tells it. Run by `npm run test:lxd`.

import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import { test } from 'node:test';
import { eventually, lxdSuite, serverInfo, testPool } from './support.ts';

const gateway = testPool.replace(/\.0\/\d+$/, '.1');
/** Lines the succeeding script prints: more than the 20 shown, so the tail is what is kept. */
const printed = 25;
const scripts: Server = createHttpServer((request, response) => {
  if (request.url === '/ok.sh')
    response.end(`#!/bin/sh\ni=1\nwhile [ $i -le ${printed} ]; do echo "line $i"; i=$((i+1)); done\nexit 0\n`);
  else if (request.url === '/fail.sh') response.end('#!/bin/sh\necho "starting"\necho "no database" >&2\nexit 3\n');
  else {
    response.statusCode = 404;
    response.end('not here\n');
  }
});
await new Promise<void>((resolve) => scripts.listen(0, gateway, resolve));
const base = `http://${gateway}:${(scripts.address() as { port: number }).port}`;
const { nubis, alice, createServer } = await lxdSuite({
  credit: 500,
  cleanUp: () => {
    scripts.close();
  },
});

async function create(label: string, scriptUrl: string): Promise<string> {
  const made = await createServer({ hostname: `${label}.example.com`, label, script_url: scriptUrl });
  assert.equal(made.info.script.state, 'pending');
  return made.uuid;
}

function reported(uuid: string) {
  return eventually(`script outcome of ${uuid}`, 120, async () => {
    const info = await serverInfo(nubis, alice.token, uuid);
    return info.info.script?.state === 'pending' ? undefined : info.info.script;
  });
}

test('a script that runs, one that fails and one that cannot be fetched: each outcome through the API', async () => {
  const ok = await create('script-ok', `${base}/ok.sh`);
  const failing = await create('script-fails', `${base}/fail.sh`);
  const missing = await create('script-missing', `${base}/missing.sh`);

  const succeeded = await reported(ok);
  assert.equal(succeeded.state, 'succeeded');
  assert.equal(succeeded.stage, 'run');
  assert.equal(succeeded.exit_status, 0);
  const lines = Array.from({ length: printed }, (_, i) => `line ${i + 1}`);
  assert.equal(succeeded.output, lines.slice(-20).join('\n'));
  assert.match(succeeded.reported, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  const failed = await reported(failing);
  assert.deepEqual([failed.state, failed.stage, failed.exit_status], ['failed', 'run', 3]);
  assert.match(failed.output, /starting/);
  assert.match(failed.output, /no database/);

  const unfetched = await reported(missing);
  assert.deepEqual([unfetched.state, unfetched.stage], ['failed', 'fetch']);
  assert.notEqual(unfetched.exit_status, 0);

  const events = await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`);
  const told = (events.body.events as { type: string; resource: { uuid: string }; data: { state: string } }[])
    .filter((event) => event.type === 'server.script')
    .map((event) => [event.resource.uuid, event.data.state]);
  assert.deepEqual(
    told.sort(),
    [
      [ok, 'succeeded'],
      [failing, 'failed'],
      [missing, 'failed'],
    ].sort(),
  );
});
