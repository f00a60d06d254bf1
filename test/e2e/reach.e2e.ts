// Reach (issue 25): every page of the console, signed out, as a customer and as the operator, in
// both themes at 1280 and 375 px wide: axe-core finds no serious or critical violation, and no
// page is wider than the window (nothing to scroll sideways at phone width). Keyboard: the
// server page's actions are reached and used with Tab and Enter alone.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { createAccount } from '../support/accounts.ts';
import { deployServer, ecdsaPublicKey } from '../support/servers.ts';
import {
  button,
  consoleSuite,
  field,
  heading,
  signIn,
  signInOperator,
  watchRequests,
  withScreenshots,
} from './browser.ts';

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

const { nubis, browser } = await consoleSuite();
const account = await createAccount(nubis, { credit: 500 });
let serverUuid: string;
let lostUuid: string;

before(async () => {
  const call = async (method: string, path: string, body?: unknown) => {
    const answer = await nubis.request(method, path, { token: account.token, body });
    assert.ok(answer.status < 400, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  // Something on every page: a server (and its snapshot and backups), a key, an IP, a VPC, a token.
  serverUuid = (await deployServer(nubis, account.token, { auto_backups: true })).uuid;
  await call('POST', '/v1.3/ssh_key/create', { name: 'laptop', public_key: ecdsaPublicKey('reach@laptop') });
  await call('POST', '/v1.3/snapshot/create', { server_id: serverUuid, name: 'before-upgrade' });
  await call('POST', '/v1.3/account/token_create', { name: 'ci' });
  // A lost machine, so the lists and a server page show the conditions' marks and table (issue 36).
  lostUuid = (await deployServer(nubis, account.token, { label: 'gone 1' })).uuid;
  const lost = await nubis.admin('POST', '/admin/faults/machines', { server: lostUuid, fault: 'machine_lost' });
  assert.equal(lost.status, 201, JSON.stringify(lost.body));
  await nubis.advance(2 * 86_400);
});

const widths = [1280, 375];
const themes = ['light', 'dark'] as const;

/** A context for axe: the page's CSP would refuse the injected axe script, so this one bypasses it. */
async function context(width: number, theme: 'light' | 'dark'): Promise<BrowserContext> {
  const made = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: theme, bypassCSP: true });
  made.setDefaultTimeout(20_000);
  return made;
}

interface Finding {
  page: string;
  rule: string;
  impact: string;
  nodes: string[];
}

/** Runs axe on the page as it is now: its serious and critical findings, and a sideways overflow. */
async function check(page: Page, requests: ReturnType<typeof watchRequests>, name: string): Promise<Finding[]> {
  // Whatever the page loads (lists, graphs) has arrived and been drawn before it is judged.
  await requests.settled();
  await page.addScriptTag({ path: axePath });
  const results = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<unknown> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })) as {
      violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
    };
  });
  const findings: Finding[] = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ page: name, rule: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 0) findings.push({ page: name, rule: 'sideways-scroll', impact: 'serious', nodes: [`${overflow}px`] });
  return findings;
}

async function setTheme(theme: 'light' | 'dark'): Promise<void> {
  const answer = await nubis.request('PATCH', '/v1.3/account/update', {
    token: account.token,
    body: { dark_mode: theme === 'dark' },
  });
  assert.equal(answer.status, 202, JSON.stringify(answer.body));
}

const customerPages: [string, string][] = [
  ['/servers', 'Servers'],
  ['/servers/new', 'Create server'],
  ['/snapshots', 'Snapshots'],
  ['/backups', 'Backups'],
  ['/floating-ips', 'Floating IPs'],
  ['/vpcs', 'VPCs'],
  ['/ssh-keys', 'SSH keys'],
  ['/tokens', 'Tokens'],
  ['/billing', 'Billing'],
  ['/settings', 'Settings'],
];
const signedOutPages: [string, string][] = [
  ['/login', 'Log in'],
  ['/signup', 'Sign up'],
  ['/reset', 'Reset password'],
  ['/admin', 'Operator sign-in'],
];
const operatorPages: [string, string][] = [
  ['/admin/accounts', 'Accounts'],
  ['/admin/servers', 'Servers across accounts'],
  ['/admin/outbox', 'Outbox'],
  ['/admin/clock', 'Clock'],
  ['/admin/audit', 'Audit log'],
];

describe('every page, both themes, 1280 and 375 px', () => {
  for (const theme of themes)
    for (const width of widths)
      test(`${theme}, ${width} px: no serious or critical violation, nothing wider than the window`, async () => {
        const made = await context(width, theme);
        const page = await made.newPage();
        const requests = watchRequests(page);
        const findings: Finding[] = [];
        await withScreenshots(
          `reach ${theme} ${width}`,
          () => [page],
          async () => {
            for (const [path, title] of signedOutPages) {
              await page.goto(`${nubis.url}/#${path}`);
              await heading(page, title).waitFor();
              findings.push(...(await check(page, requests, `${path} (signed out)`)));
            }

            await setTheme(theme);
            await signIn(page, nubis.url, account);
            await page.waitForFunction((wanted) => document.documentElement.dataset.theme === wanted, theme);
            for (const [path, title] of customerPages) {
              await page.goto(`${nubis.url}/#${path}`);
              await heading(page, title).waitFor();
              findings.push(...(await check(page, requests, path)));
            }
            await page.goto(`${nubis.url}/#/servers/${serverUuid}`);
            await heading(page, 'web 1').waitFor();
            await page.getByRole('img', { name: /^CPU: latest/ }).waitFor();
            findings.push(...(await check(page, requests, '/servers/<uuid>')));
            await button(page, 'Console').click();
            await page
              .getByRole('status')
              .filter({ hasText: /The console closed/ })
              .waitFor();
            findings.push(...(await check(page, requests, '/servers/<uuid> with the console')));
            await page.goto(`${nubis.url}/#/servers/${lostUuid}`);
            await heading(page, 'gone 1').waitFor();
            await page.getByRole('region', { name: 'Conditions', exact: true }).getByRole('table').waitFor();
            findings.push(...(await check(page, requests, '/servers/<uuid> of a lost machine')));

            await signInOperator(page, nubis.url);
            for (const [path, title] of operatorPages) {
              await page.goto(`${nubis.url}/#${path}`);
              await heading(page, title).waitFor();
              findings.push(...(await check(page, requests, path)));
            }
            await page.goto(`${nubis.url}/#/admin/accounts/${account.id}`);
            await heading(page, account.email).waitFor();
            findings.push(...(await check(page, requests, '/admin/accounts/<id>')));
            assert.deepEqual(findings, []);
          },
        );
        await made.close();
      });
});

describe('by keyboard alone', () => {
  test("at phone width, the server page's Console and its graphs' periods answer Tab and Enter", async () => {
    const made = await context(375, 'dark');
    const page = await made.newPage();
    await withScreenshots(
      'reach keyboard',
      () => [page],
      async () => {
        await page.goto(`${nubis.url}/#/login`);
        await field(page, 'Email').fill(account.email);
        await field(page, 'Password').fill(account.password);
        await page.keyboard.press('Enter');
        await heading(page, 'Servers').waitFor();
        await page.goto(`${nubis.url}/#/servers/${serverUuid}`);
        await heading(page, 'web 1').waitFor();
        /** Tabs until `name` has the focus (at most 80 presses), then presses Enter. */
        const tabTo = async (name: string) => {
          for (let presses = 0; presses < 80; presses++) {
            await page.keyboard.press('Tab');
            const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
            if (focused === name) {
              await page.keyboard.press('Enter');
              return;
            }
          }
          assert.fail(`${name} is not reached by Tab`);
        };
        await tabTo('Console');
        await page
          .getByRole('status')
          .filter({ hasText: /The console closed/ })
          .waitFor();
        await tabTo('Last day');
        await page.getByRole('button', { name: 'Last day', pressed: true }).waitFor();
      },
    );
    await made.close();
  });
});
