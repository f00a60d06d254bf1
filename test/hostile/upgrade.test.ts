// Issue 34, item 1: one request never kills the process. Upgrade requests go to a listener of the
// HTTP server outside Fastify; every malformed one, generated over every path of the served
// OpenAPI document and the console paths, gets an HTTP answer (4xx) on raw sockets, and the
// server still answers /readyz afterwards.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startTestInstance, type TestInstance } from '../support/instance.ts';

/** What the server answered to `raw` on a fresh connection: its status line's code, or how it ended. */
function exchange(url: URL, raw: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port: Number(url.port), host: url.hostname });
    let received = '';
    const done = (result: string) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(10_000, () => done(`no answer in 10 s (got ${JSON.stringify(received.slice(0, 80))})`));
    socket.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n\r\n')) done(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? received.slice(0, 80));
    });
    socket.on('end', () => done(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? `closed (${received.slice(0, 80)})`));
    socket.write(raw, 'latin1');
  });
}

const key = Buffer.from('0123456789abcdef').toString('base64');
const upgradeHeaders: Record<string, string> = {
  host: 'nubis.test',
  connection: 'Upgrade',
  upgrade: 'websocket',
  'sec-websocket-version': '13',
  'sec-websocket-key': key,
  'sec-websocket-protocol': 'nubis.console, bearer.dG9rZW4',
};

function requestText(method: string, target: string, headers: Record<string, string | null>, extra = ''): string {
  const lines = Object.entries({ ...upgradeHeaders, ...headers })
    .filter((entry): entry is [string, string] => entry[1] !== null)
    .map(([name, value]) => `${name}: ${value}`);
  return `${method} ${target} HTTP/1.1\r\n${lines.join('\r\n')}\r\n${extra}\r\n`;
}

/**
 * An upgrade request: what it is, its bytes, and whether it is a well-formed WebSocket handshake
 * all the same (a console path takes it: 101, then the console closes for the garbage token).
 */
type Case = [string, string, handshake?: boolean];

/** Every malformed upgrade made of one path (`{name}` parameters filled with a plausible id). */
function casesFor(template: string, isConsole: boolean): Case[] {
  const path = template.replace(/\{[^}]+\}/g, 'b5c8a1de-0000-4000-8000-000000000001');
  const badEncoded = template.includes('{') ? template.replace(/\{[^}]+\}/g, '%ff') : `${path}/%ff`;
  const cases: Case[] = [
    ['bad percent-encoding', requestText('GET', badEncoded, {})],
    ['a lone %', requestText('GET', template.includes('{') ? template.replace(/\{[^}]+\}/g, '%') : `${path}%`, {})],
    ['an encoded NUL', requestText('GET', `${path.replace(/[^/]+$/, '%00')}`, {})],
    ['a leading //', requestText('GET', `/${path}`, {})],
    ['a 4 kB path', requestText('GET', `${path}/${'a'.repeat(4096)}`, {})],
    ['a 4 kB encoded segment', requestText('GET', `${path.replace(/[^/]+$/, '%e2'.repeat(1400))}`, {})],
    ['an absolute-form target', requestText('GET', `http://nubis.test${badEncoded}`, {})],
    [
      'a query of bad escapes (queries are not read)',
      requestText('GET', `${path}?%zz=%ff&${'x'.repeat(2000)}`, {}),
      true,
    ],
    ['no Sec-WebSocket-Key', requestText('GET', path, { 'sec-websocket-key': null })],
    ['no Sec-WebSocket-Version', requestText('GET', path, { 'sec-websocket-version': null })],
    ['version 99', requestText('GET', path, { 'sec-websocket-version': '99' })],
    ['a short key', requestText('GET', path, { 'sec-websocket-key': 'c2hvcnQ=' })],
    ['Upgrade: h2c', requestText('GET', path, { upgrade: 'h2c' })],
    ['POST', requestText('POST', path, { 'content-length': '0' })],
    ['PUT with a body', requestText('PUT', path, { 'content-length': '4' }, 'abcd')],
    ['DELETE', requestText('DELETE', path, {})],
    ['HEAD', requestText('HEAD', path, {})],
    ['OPTIONS', requestText('OPTIONS', path, {})],
    ['a garbage protocol list', requestText('GET', path, { 'sec-websocket-protocol': ',,, ,\t,bearer.%%%' })],
    [
      'a subprotocol of 4 kB',
      requestText('GET', path, { 'sec-websocket-protocol': `nubis.console, bearer.${'A'.repeat(4096)}` }),
      true,
    ],
    // No extension is offered by the server, so any list is ignored.
    [
      'garbage extensions',
      requestText('GET', path, { 'sec-websocket-extensions': 'permessage-deflate; x=;;;=' }),
      true,
    ],
    ['a header with control bytes', requestText('GET', path, { 'x-junk': 'a\u0001b\u007f' })],
    ['bytes above ASCII in the target', requestText('GET', `${path}\u00ff\u00fe`, {})],
  ];
  // A well-formed upgrade to a path that serves none: 404 (the console paths do serve one).
  cases.push(['a well-formed upgrade', requestText('GET', path, {}), true]);
  // Elsewhere than a console, even a well-formed handshake is refused.
  return isConsole ? cases : cases.map(([what, raw]) => [what, raw]);
}

describe('malformed upgrade requests', () => {
  let nubis: TestInstance;
  let url: URL;
  let paths: string[];
  before(async () => {
    nubis = await startTestInstance({ MAX_CONNECTIONS_PER_ADDRESS: '10000' });
    url = new URL(nubis.url);
    const doc = (await nubis.request('GET', '/openapi.json')).body;
    paths = Object.keys(doc.paths);
    assert.ok(paths.length > 50, `the document lists ${paths.length} paths`);
  });
  after(async () => {
    await nubis.close();
  });

  const consolePaths = ['/v1.3/server/console/{server_id}', '/admin/servers/{server}/console'];

  test('the two raw requests of the issue answer 400 and the server stays up', async () => {
    assert.equal(await exchange(url, requestText('GET', '/v1.3/server/console/%ff', {})), '400');
    assert.equal(await exchange(url, requestText('GET', '//', {})), '400');
    assert.equal(await exchange(url, requestText('GET', '/admin/servers/%E0%A4%A/console', {})), '400');
    assert.equal((await nubis.request('GET', '/readyz')).status, 200);
  });

  test('every path of /openapi.json and the console paths: each malformed upgrade gets a 4xx', async () => {
    const all: [string, Case][] = [];
    for (const path of [...paths, ...consolePaths])
      for (const c of casesFor(path, consolePaths.includes(path))) all.push([path, c]);
    all.push(['(none)', ['a bare //', requestText('GET', '//', {})]]);
    all.push(['(none)', ['a path of slashes', requestText('GET', '/'.repeat(4096), {})]]);
    all.push(['(none)', ['an asterisk', requestText('GET', '*', {})]]);
    assert.ok(all.length > 1000, `${all.length} cases`);
    const wrong: string[] = [];
    // A few at a time: enough to be quick, few enough to stay under any connection cap.
    let next = 0;
    const worker = async () => {
      while (next < all.length) {
        const [path, [what, raw, handshake]] = all[next++]!;
        const status = await exchange(url, raw);
        if (handshake ? status !== '101' : !/^4\d\d$/.test(status)) wrong.push(`${path}, ${what}: ${status}`);
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    assert.deepEqual(wrong.slice(0, 20), [], `${wrong.length} of ${all.length} malformed upgrades not answered 4xx`);
    assert.equal((await nubis.request('GET', '/readyz')).status, 200);
  });

  test('an unknown upgrade path is 404 and a malformed console path 400', async () => {
    assert.equal(await exchange(url, requestText('GET', '/v1.3/account/info', {})), '404');
    assert.equal(await exchange(url, requestText('GET', '/v1.3/server/console/a%2', {})), '400');
    assert.equal(await exchange(url, requestText('GET', '/v1.3/server/console/%c0%af', {})), '400');
  });
});
