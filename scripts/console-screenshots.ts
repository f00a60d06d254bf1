// Screenshots of the console's main pages in both themes, for docs/console/ and the README:
// starts a Nubis with a virtual clock, gives an account a few servers, a key, a snapshot and a
// month of billing, then photographs each page in Chromium, light and dark.
// Usage: npm run build -w @nubis/console && node scripts/console-screenshots.ts

import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startTestInstance } from '../test/support/instance.ts';
import { createAccount } from '../test/support/accounts.ts';
import { ecdsaPublicKey } from '../test/support/servers.ts';
import { launch, signIn } from '../test/e2e/browser.ts';
import { awaitPower, engine, removeServers, startLxdInstance, TEST_IMAGE } from '../test/lxd/support.ts';

const out = resolve(import.meta.dirname, '../docs/console');
mkdirSync(out, { recursive: true });

const nubis = await startTestInstance({ LOG_LEVEL: 'silent' });
const browser = await launch();
try {
  const account = await createAccount(nubis, { credit: 250, email: 'ada@example.com' });
  const call = async (method: string, path: string, body?: unknown) => {
    const answer = await nubis.request(method, path, { token: account.token, body });
    if (answer.status >= 400) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  await call('PATCH', '/v1.3/account/update', { firstname: 'Ada', lastname: 'Lovelace' });
  const key = await call('POST', '/v1.3/ssh_key/create', { name: 'laptop', public_key: ecdsaPublicKey('ada@laptop') });
  const names = ['web-1', 'web-2', 'db-1', 'cache-1', 'worker-1'];
  const servers = [];
  for (const [index, name] of names.entries())
    servers.push(
      await call('POST', '/v1.3/server/create', {
        hostname: `${name}.example.com`,
        label: name,
        region: 101,
        image: 1001,
        plan: index < 2 ? 2 : 1,
        ssh_key: key.uuid,
        auto_backups: index === 2,
        ipv6_networking: index < 2,
      }),
    );
  await nubis.advance(600);
  await call('PATCH', '/v1.3/server/stop', { server_id: servers[3].uuid });
  await call('POST', '/v1.3/snapshot/create', { server_id: servers[2].uuid, name: 'before-upgrade' });
  await nubis.advance(20 * 86400);
  await call('POST', '/v1.3/server/create', {
    hostname: 'new-1.example.com',
    label: 'new-1',
    region: 101,
    image: 1001,
    plan: 1,
  });

  for (const dark of [false, true]) {
    const theme = dark ? 'dark' : 'light';
    await call('PATCH', '/v1.3/account/update', { dark_mode: dark });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: theme });
    const page = await context.newPage();
    const shoot = async (name: string, fullPage = false) => {
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(out, `${name}-${theme}.png`), fullPage });
    };
    await page.goto(`${nubis.url}/#/login`);
    await page.getByLabel('Email', { exact: true }).fill(account.email);
    await shoot('login');
    await page.getByLabel('Password', { exact: true }).fill(account.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Servers', level: 1 }).waitFor();
    await page.getByRole('cell', { name: 'new-1' }).waitFor();
    await shoot('servers');
    await page.goto(`${nubis.url}/#/servers/new`);
    await page.getByLabel('Region', { exact: true }).selectOption('101');
    await page.getByLabel('Image', { exact: true }).selectOption('1001');
    await page.getByLabel('Plan', { exact: true }).selectOption('2');
    await page.getByLabel('Hostname', { exact: true }).fill('api-1.example.com');
    await page.getByLabel('Label', { exact: true }).fill('api-1');
    await page.getByRole('region', { name: 'Price' }).getByText('per month').waitFor();
    await shoot('create-server', true);
    await page.goto(`${nubis.url}/#/servers/${servers[2].uuid}`);
    await page.getByRole('heading', { name: 'db-1', level: 1 }).waitFor();
    await shoot('server');
    // The graphs (the simulated driver's series) and the activity, as far down as they go.
    await page.getByRole('img', { name: /^CPU: latest/ }).waitFor();
    await page.getByRole('region', { name: 'Graphs', exact: true }).screenshot({
      path: join(out, `server-graphs-${theme}.png`),
    });
    // The same page at a phone's width.
    await page.setViewportSize({ width: 375, height: 812 });
    await page.waitForTimeout(300);
    await shoot('server-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${nubis.url}/#/billing`);
    await page.getByRole('img', { name: /Spending by month/ }).waitFor();
    await shoot('billing');
    await page.evaluate(() => sessionStorage.clear());
    await page.goto(`${nubis.url}/#/admin`);
    await page.evaluate((token) => sessionStorage.setItem('nubis.operator', token), nubis.config.adminToken ?? '');
    await page.goto(`${nubis.url}/#/admin/accounts/${account.id}`);
    await page.reload();
    await page.getByRole('heading', { name: account.email, level: 1 }).waitFor();
    await shoot('operator-account');
    await context.close();
  }
  if (process.env.SCREENSHOT_TERMINAL) await terminalShot();
  console.log(`screenshots in ${out}`);
} finally {
  await browser.close();
  await nubis.close();
}

/**
 * The terminal needs a machine: with SCREENSHOT_TERMINAL=1 (and LXD, `flock /tmp/nubis-lxd.lock`),
 * a Nubis on the LXD driver deploys a test-image server, and the console is photographed after a
 * login and `hostname`.
 */
async function terminalShot(): Promise<void> {
  const lxdEngine = engine();
  const lxd = await startLxdInstance();
  const owner = await createAccount(lxd, { credit: 50, email: 'ada@example.com' });
  const created = await lxd.request('POST', '/v1.3/server/create', {
    token: owner.token,
    body: { hostname: 'web-1.example.com', label: 'web-1', region: 101, image: TEST_IMAGE, plan: 1 },
  });
  try {
    const info = await awaitPower(lxd, owner.token, created.body.uuid, 'running');
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
    const page = await context.newPage();
    await signIn(page, lxd.url, owner);
    await page.goto(`${lxd.url}/#/servers/${created.body.uuid}`);
    await page.getByRole('button', { name: 'Console', exact: true }).click();
    const rows = page.locator('.xterm-rows');
    await rows
      .getByText(/login:/)
      .first()
      .waitFor();
    await page.getByRole('application', { name: /terminal/ }).click();
    await page.keyboard.type('root\n');
    await rows
      .getByText(/Password:/)
      .first()
      .waitFor();
    await page.keyboard.type(`${info.info.password}\n`);
    await page.waitForTimeout(1000);
    await page.keyboard.type('hostname; uptime\n');
    await rows.getByText('web-1.example.com', { exact: true }).first().waitFor();
    await page.getByRole('region', { name: /^Console of/ }).screenshot({ path: join(out, 'server-terminal-dark.png') });
    await context.close();
  } finally {
    await removeServers(lxd, owner.token, [created.body.uuid], lxdEngine);
    lxdEngine.close();
    await lxd.close();
  }
}
