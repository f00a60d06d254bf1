// How the CLI's calls travel (cli/src/transport.ts): on node:http, never loading fetch's undici
// (its load is most of a command's CPU); and a call that gets no answer (silence, a certificate
// refused) ends in one line naming the URL tried, exit 9, as a refused connection does.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { unwrap } from '@nubis/sdk';
import { cliCommands, runCli } from '@nubis/cli';
import { Writable } from 'node:stream';
import { CliError, clientOf, exitCodes } from '../cli/src/command-kit.ts';
import { createAccount, type TestAccount } from './support/accounts.ts';
import { startTestInstance, type TestInstance } from './support/instance.ts';
import { finished } from './support/processes.ts';

const root = resolve(import.meta.dirname, '..');
let nubis: TestInstance;
let account: TestAccount;
let scratch: string;

before(async () => {
  nubis = await startTestInstance();
  account = await createAccount(nubis);
  scratch = mkdtempSync(join(tmpdir(), 'nubis-cli-transport-'));
});
after(async () => {
  await nubis.close();
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * Runs the real `nubis` in a fresh process (spawned, not spawnSync: the test server answers from
 * this process); at exit the child writes the builtins it loaded to a file.
 */
async function nubisCommand(
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string; builtins: string[] }> {
  const loaded = join(scratch, `loaded-${Math.random().toString(36).slice(2)}.json`);
  const record = `import { writeFileSync } from 'node:fs'; process.on('exit', () => writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(process.moduleLoadList)));`;
  const child = spawn(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(record)}`, join(root, 'bin/nubis.ts'), ...args],
    { cwd: root, env: { PATH: process.env.PATH, HOME: scratch, XDG_CONFIG_HOME: scratch, ...env } },
  );
  const { code: status, stdout, stderr } = await finished(child);
  return { status, stdout, stderr, builtins: JSON.parse(readFileSync(loaded, 'utf8')) };
}

test("a command's call goes on node:http: neither undici (fetch) nor TLS loads", async () => {
  const run = await nubisCommand(['-o', 'json', 'server', 'list'], {
    NUBIS_URL: nubis.url,
    NUBIS_TOKEN: account.token,
  });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout).servers, []);
  assert.deepEqual(
    run.builtins.filter((name) => /undici|http2|tls/.test(name)),
    [],
  );
  // --help makes no call: not even node:http loads.
  const help = await nubisCommand(['--help'], {});
  assert.equal(help.status, 0, help.stderr);
  assert.deepEqual(
    help.builtins.filter((name) => /undici|NativeModule (http|https)$/.test(name)),
    [],
  );
});

/** Expects the call to fail as the CLI reports it: exit 9 and one line naming the URL. */
async function unreachable(call: Promise<unknown>, message: string | RegExp): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof CliError, String(error));
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    assert.equal(error.code, exitCodes.unreachable);
    return true;
  });
}

test('a server that accepts and never answers: the call gives up after the silence, naming the URL', async () => {
  const sockets: Socket[] = [];
  const silent = createServer((socket) => sockets.push(socket));
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  try {
    await unreachable(
      unwrap(clientOf(url, 'token', 200).GET('/v1.3/server/list')),
      `cannot reach ${url}: no answer within 0.2 s`,
    );
    assert.equal(sockets.length, 1, 'one connection was made');
  } finally {
    for (const socket of sockets) socket.destroy();
    silent.close();
  }
});

test('https: a certificate the system does not trust is refused naming the URL; one it trusts answers', async () => {
  const key = join(scratch, 'key.pem');
  const cert = join(scratch, 'cert.pem');
  const made = spawnSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
    '-keyout',
    key,
    '-out',
    cert,
  ]);
  assert.equal(made.status, 0, String(made.stderr));
  // Stands in for a Nubis behind TLS: every call answers an empty server list.
  const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (request, response) => {
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ servers: [], path: request.url }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await unreachable(
      unwrap(clientOf(url, 'token').GET('/v1.3/server/list')),
      // Node's own words (with its hint about --use-system-ca), then the code.
      new RegExp(`^cannot reach ${url}: self-signed certificate\\b.*\\(DEPTH_ZERO_SELF_SIGNED_CERT\\)$`),
    );
    // Trusted through NODE_EXTRA_CA_CERTS (read at process start): the command gets its answer.
    const run = await nubisCommand(['-o', 'json', 'server', 'list'], {
      NUBIS_URL: url,
      NUBIS_TOKEN: 'token',
      NODE_EXTRA_CA_CERTS: cert,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { servers: [], path: '/v1.3/server/list' });
    assert.deepEqual(
      run.builtins.filter((name) => /undici/.test(name)),
      [],
    );
  } finally {
    server.close();
  }
});

test('each command line registers its own noun alone, and each noun answers its --help', async () => {
  for (const command of cliCommands) {
    let text = '';
    const out = new Writable({
      write(chunk, _encoding, done) {
        text += chunk;
        done();
      },
    });
    const code = await runCli(['-o', 'json', command, '--help'], { stdout: out, stderr: out, env: {} });
    assert.equal(code, exitCodes.ok, text);
    assert.match(text, new RegExp(`^Usage: nubis ${command} `), text);
  }
});
