// The server's page on real servers (issue 25), in Chromium: the Console button opens the
// machine's own console (the login prompt, a login with the root password, `hostname` prints the
// server's hostname); the graphs show the engine's samples after a few reconciliations; the
// activity tells a stop and a start in order. Then the console's WebSocket as any client meets
// it: it ends when the server stops or the token is removed, the operator opens any server's,
// and in rescue mode it is the rescue system's. Run by `npm run test:lxd`.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import WebSocket from 'ws';
import { ADMIN_TOKEN } from '../support/instance.ts';
import { createAccount } from '../support/accounts.ts';
import { button, heading, launch, newPage, signIn, withScreenshots } from '../e2e/browser.ts';
import { awaitPower, eventually, lxdSuite } from './support.ts';

const { nubis, alice, createServer, power: ask } = await lxdSuite({ credit: 500 });
const browser = await launch();
after(() => browser.close());

async function deploy(hostname: string): Promise<{ uuid: string; password: string }> {
  const made = await createServer({ hostname, label: hostname.split('.')[0] });
  const info = await awaitPower(nubis, alice.token, made.uuid, 'running');
  return { uuid: made.uuid, password: info.info.password };
}

async function power(uuid: string, verb: 'start' | 'stop') {
  await ask(uuid, verb);
  return awaitPower(nubis, alice.token, uuid, verb === 'start' ? 'running' : 'stopped');
}

/** What the page's terminal shows, row by row. */
const screen = (page: Page) => page.locator('.xterm-rows').innerText();

async function screenShows(page: Page, pattern: RegExp, what: string): Promise<void> {
  await eventually(what, 30, async () => (pattern.test(await screen(page)) ? true : undefined));
}

/** A console WebSocket as a client opens it: what it received, and how it closed. */
function openConsole(path: string, protocol: string) {
  const socket = new WebSocket(`${nubis.url.replace(/^http/, 'ws')}${path}`, ['nubis.console', protocol]);
  let received = '';
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  socket.on('message', (data: Buffer) => {
    received += data.toString('utf8');
  });
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    socket,
    opened,
    closed,
    output: () => received,
    type: (text: string) => socket.send(Buffer.from(text), { binary: true }),
  };
}
/**
 * Waits for `pattern` in what the console sent, pressing Enter every 3 s meanwhile: a getty that
 * starts after the console opened drops what was typed before it and printed its prompt unwatched.
 */
async function awaitOutput(client: ReturnType<typeof openConsole>, pattern: RegExp, what: string) {
  let pressed = 0;
  await eventually(what, 45, async () => {
    if (pattern.test(client.output())) return true;
    if (Date.now() - pressed > 3000) {
      pressed = Date.now();
      client.type('\r');
    }
    return undefined;
  });
}
const bearer = (token: string) => `bearer.${Buffer.from(token).toString('base64url')}`;

describe("the server's page on a real server", () => {
  test('the console logs in with the root password; graphs fill; the activity tells a stop and a start', async () => {
    const { uuid, password } = await deploy('console-1.example.com');
    const page = await newPage(browser);
    await withScreenshots(
      'real console graphs activity',
      () => [page],
      async () => {
        await signIn(page, nubis.url, alice);
        await page.goto(`${nubis.url}/#/servers/${uuid}`);
        await heading(page, 'console-1').waitFor();

        // The console: the machine's own login prompt, root's password, then a shell.
        await button(page, 'Console').click();
        await page
          .getByRole('status')
          .filter({ hasText: /Connected/ })
          .waitFor();
        await screenShows(page, /console-1\.example\.com login:/, 'the login prompt');
        const terminal = page.getByRole('application', { name: /terminal/ });
        await terminal.click();
        await page.keyboard.type('root\n');
        await screenShows(page, /Password:/, 'the password prompt');
        await page.keyboard.type(`${password}\n`);
        await screenShows(page, /#\s*$/m, 'a root shell');
        await page.keyboard.type('hostname\n');
        await screenShows(page, /hostname\s*\n\s*console-1\.example\.com/, 'the hostname printed');

        // The graphs: the engine's readings after a few reconciliations (one a second here).
        const samples = await eventually('usage samples', 60, async () => {
          const metrics = await nubis.request('GET', `/v1.3/server/metrics/${uuid}`, { token: alice.token });
          const read = metrics.body.points.filter((p: { cpu: number | null }) => p.cpu !== null);
          return metrics.body.source === 'engine' && read.length > 0 ? metrics.body : undefined;
        });
        assert.ok(samples.points.every((p: { memory_mb: number | null }) => p.memory_mb === null || p.memory_mb > 0));
        await page.reload();
        await heading(page, 'console-1').waitFor();
        const graphs = page.getByRole('region', { name: 'Graphs', exact: true });
        await graphs.getByRole('img', { name: /^CPU: latest/ }).waitFor();
        await graphs.getByRole('img', { name: /^Network: In: latest/ }).waitFor();

        // A stop and a start, told in order in the activity.
        await button(page, 'Stop').click();
        await page.locator('.page-header .badge', { hasText: /^stopped$/ }).waitFor({ timeout: 120_000 });
        await button(page, 'Start').click();
        await page.locator('.page-header .badge', { hasText: /^running$/ }).waitFor({ timeout: 120_000 });
        const activity = page.getByRole('region', { name: 'Activity', exact: true });
        await activity.getByRole('cell', { name: 'Booting ended: running' }).waitFor();
        const rows = await activity
          .locator('tbody tr')
          .evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[1]?.textContent ?? ''));
        assert.deepEqual(rows.slice(0, 4), [
          'Booting ended: running',
          'Booting began',
          'Stopping ended: stopped',
          'Stopping began',
        ]);
      },
    );
  });

  test('the console ends when the server stops or the token goes; the operator opens any; rescue has its own', async () => {
    const { uuid } = await deploy('console-2.example.com');
    // A second token of Alice's: removing it ends its console.
    const made = await nubis.request('POST', '/v1.3/account/token_create', {
      token: alice.token,
      body: { name: 'console' },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const second = openConsole(`/v1.3/server/console/${uuid}`, bearer(made.body.token));
    await second.opened;
    await awaitOutput(second, /console-2\.example\.com login:/, 'a login prompt');
    const removed = await nubis.request('DELETE', `/v1.3/account/token_remove/${made.body.uuid}`, {
      token: alice.token,
    });
    assert.equal(removed.status, 204, JSON.stringify(removed.body));
    assert.deepEqual(await second.closed, { code: 4401, reason: 'the token was removed' });

    // Another account's token opens nothing; a token is needed.
    const bob = await createAccount(nubis);
    assert.equal((await openConsole(`/v1.3/server/console/${uuid}`, bearer(bob.token)).closed).code, 4404);
    assert.equal((await openConsole(`/v1.3/server/console/${uuid}`, 'none').closed).code, 4401);

    // The operator's console of Alice's server.
    const operator = openConsole(
      `/admin/servers/${uuid}/console`,
      `operator.${Buffer.from(ADMIN_TOKEN).toString('base64url')}`,
    );
    await operator.opened;
    await awaitOutput(operator, /console-2\.example\.com login:/, 'the operator sees the login');
    operator.socket.close();

    // Rescue mode: the console is the rescue system's.
    const rescued = await nubis.request('POST', '/v1.3/server/rescue', {
      token: alice.token,
      body: { server_id: uuid, enable: true },
    });
    assert.equal(rescued.status, 202, JSON.stringify(rescued.body));
    await awaitPower(nubis, alice.token, uuid, 'running');
    const rescue = openConsole(`/v1.3/server/console/${uuid}`, bearer(alice.token));
    await rescue.opened;
    await awaitOutput(rescue, /rescue login:/, 'the rescue system login');

    // Stopping the server ends its console.
    await power(uuid, 'stop');
    const end = await rescue.closed;
    assert.ok(end.code === 1000 || end.code === 4409, JSON.stringify(end));
    // A stopped server has no console to open.
    assert.equal((await openConsole(`/v1.3/server/console/${uuid}`, bearer(alice.token)).closed).code, 4409);
  });
});
