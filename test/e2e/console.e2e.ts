// The web console end to end, in a real browser (Debian's Chromium through playwright-core)
// against a real Nubis serving the built console at /. Run by `npm test` as its own stage
// (scripts/test.ts); every failure leaves screenshots in test-results/.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN_TOKEN, startTestInstance } from '../support/instance.ts';
import { createAccount, uniqueEmail } from '../support/accounts.ts';
import { ecdsaPublicKey, SETTLE_SECONDS, standardServer } from '../support/servers.ts';
import { button, consoleSuite, field, heading, newPage, withScreenshots } from './browser.ts';

const { nubis, browser } = await consoleSuite();

async function theme(page: Page): Promise<string | undefined> {
  return page.evaluate(() => document.documentElement.dataset.theme);
}

async function logIn(page: Page, email: string, password: string, url = nubis.url): Promise<void> {
  await page.goto(`${url}/#/login`);
  await field(page, 'Email').fill(email);
  await field(page, 'Password').fill(password);
  await button(page, 'Log in').click();
  await heading(page, 'Servers').waitFor();
}

describe('the web console in Chromium', () => {
  test('a customer signs up, activates, logs in, deploys, stops, snapshots, sees billing, switches theme, logs out', async () => {
    const page = await newPage(browser);
    await withScreenshots(
      'customer journey',
      () => [page],
      async () => {
        const email = uniqueEmail('console');
        const password = 'a-long-password-123';

        // The first page is the log-in form, served by Nubis at /.
        const response = await page.goto(`${nubis.url}/`);
        assert.equal(response?.status(), 200);
        assert.equal(response?.headers()['cache-control'], 'no-cache');
        await heading(page, 'Log in').waitFor();

        // Sign up, with a bad e-mail first: the API's error shows next to the Email field.
        await page.getByRole('link', { name: 'Create an account' }).click();
        await heading(page, 'Sign up').waitFor();
        await field(page, 'Email').fill('not-an-email');
        await field(page, 'Password').fill(password);
        await field(page, 'First name').fill('Ada');
        await field(page, 'Last name').fill('Lovelace');
        await field(page, 'Country').fill('gb');
        await page.getByLabel('I accept the terms of service').check();
        await button(page, 'Sign up').click();
        await page.locator('.field-error').first().waitFor();
        assert.equal(await field(page, 'Email').getAttribute('aria-invalid'), 'true');
        const describedBy = await field(page, 'Email').getAttribute('aria-describedby');
        const refused = await nubis.request('POST', '/v1.3/account/register', {
          body: {
            email: 'not-an-email',
            password,
            firstname: 'Ada',
            lastname: 'Lovelace',
            country: 'GB',
            accept_tos: true,
          },
        });
        const reason = refused.body.errors.find((e: { field: string }) => e.field === 'email').reason;
        assert.equal(await page.locator(`#${describedBy?.split(' ')[0]}`).textContent(), reason);
        await field(page, 'Email').fill(email);
        await button(page, 'Sign up').click();
        await heading(page, 'Check your mail').waitFor();
        assert.match((await page.locator('main').textContent()) ?? '', new RegExp(email.replace(/[.+]/g, '\\$&')));

        // The activation mail links to the console's activation page.
        const outbox = await nubis.admin('GET', `/admin/outbox?to=${encodeURIComponent(email)}`);
        const mail = outbox.body.messages.find((m: { subject: string }) => /activate/i.test(m.subject));
        const uuid = /Activation uuid: ([0-9a-f-]{36})/.exec(mail.text)?.[1];
        const link = /(https?:\/\/\S+)\/#\/activate\/([0-9a-f-]{36})/.exec(mail.text);
        assert.ok(link, `no console link in the mail: ${mail.text}`);
        assert.equal(link[2], uuid);
        await page.goto(`${nubis.url}/#/activate/${link[2]}`);
        await page.getByText('Your account is activated.').waitFor();

        // Log out of the sign-up session and log in with the password.
        await button(page, 'Log out').click();
        await heading(page, 'Log in').waitFor();
        // By keyboard alone: type the e-mail, Tab to the password, Enter submits.
        // (The form offers the address just signed up with; it is cleared and typed anew.)
        await page.goto(`${nubis.url}/#/login`);
        assert.equal(await field(page, 'Email').inputValue(), email);
        await field(page, 'Email').fill('');
        await field(page, 'Email').focus();
        await page.keyboard.type(email);
        await page.keyboard.press('Tab');
        await page.keyboard.type(password);
        await page.keyboard.press('Enter');
        await heading(page, 'Servers').waitFor();
        const info = await nubis.request('GET', '/v1.3/account/info', {
          token: await page.evaluate(() => sessionStorage.getItem('nubis.token')),
        });
        assert.equal(info.body.activated, true);
        await nubis.admin('POST', `/admin/accounts/${info.body.id}/credit`, { amount: 50, note: 'e2e' });

        // An SSH key, pasted; its fingerprint is listed.
        await page.getByRole('link', { name: 'SSH keys' }).click();
        await heading(page, 'SSH keys').waitFor();
        await field(page, 'Name').fill('laptop');
        await field(page, 'Public key').fill(ecdsaPublicKey('ada@laptop'));
        await button(page, 'Add SSH key').click();
        await page.getByRole('cell', { name: 'laptop', exact: true }).waitFor();
        const keys = await nubis.request('GET', '/v1.3/ssh_key/list', { token: await token(page) });
        await page.getByRole('cell', { name: keys.body.ssh_keys[0].fingerprint }).waitFor();

        // Create a server: region → image → plan, the price from the API, then the name.
        await page.getByRole('link', { name: 'Servers' }).click();
        await page.getByRole('link', { name: 'Create server' }).click();
        await heading(page, 'Create server').waitFor();
        await field(page, 'Region').selectOption(String(standardServer.region));
        await field(page, 'Image').selectOption(String(standardServer.image));
        await field(page, 'Plan').selectOption(String(standardServer.plan));
        const plans = await nubis.request('GET', `/v1.3/plan/list?region_id=${standardServer.region}`);
        const plan = plans.body.plans[String(standardServer.plan)];
        const price = page.getByRole('region', { name: 'Price' });
        await price.getByText(`$${plan.price_monthly.toFixed(2)}`).waitFor();
        await price.getByText(`$${plan.price_hourly.toFixed(4)}`).waitFor();
        await field(page, 'Hostname').fill('web-1.example.com');
        await field(page, 'Label').fill('web 1');
        await field(page, 'SSH key').selectOption({ index: 1 });
        await button(page, 'Create server').click();
        await heading(page, 'web 1').waitFor();
        const badge = page.locator('.page-header .badge');
        assert.equal(await badge.textContent(), 'provisioning');

        // The clock moves; the page sees the server running without a reload.
        await nubis.advance(SETTLE_SECONDS);
        await page.locator('.page-header .badge', { hasText: /^running$/ }).waitFor();

        // Stop it.
        await button(page, 'Stop').click();
        await nubis.advance(SETTLE_SECONDS);
        await page.locator('.page-header .badge', { hasText: /^stopped$/ }).waitFor();

        // The root password, on demand.
        await button(page, 'Show root password').click();
        const details = await nubis.request('GET', '/v1.3/server/list', { token: await token(page) });
        await page.getByText(details.body.servers[0].info.password, { exact: true }).waitFor();

        // A snapshot of it.
        await field(page, 'Snapshot name').fill('before-upgrade');
        await button(page, 'Take snapshot').click();
        await page.getByRole('cell', { name: 'before-upgrade', exact: true }).waitFor();

        // Billing shows the server's invoice item and the chart.
        await nubis.advance(3600);
        await page.getByRole('link', { name: 'Billing' }).click();
        await heading(page, 'Billing').waitFor();
        await page
          .getByRole('cell', { name: /^web 1 \(/ })
          .first()
          .waitFor();
        await page.getByRole('img', { name: /Spending by month/ }).waitFor();

        // Dark mode: new accounts start dark; the switch changes the theme and the account.
        await page.getByRole('link', { name: 'Settings' }).click();
        await heading(page, 'Settings').waitFor();
        assert.equal(await theme(page), 'dark');
        const darkMode = field(page, 'Dark mode');
        assert.equal(await darkMode.isChecked(), true);
        await darkMode.uncheck();
        await page.getByText('Dark mode off.').waitFor();
        assert.equal(await theme(page), 'light');
        const after = await nubis.request('GET', '/v1.3/account/info', { token: await token(page) });
        assert.equal(after.body.profile.dark_mode, false);

        // Log out: the token is gone from the tab, and there never was a cookie.
        await button(page, 'Log out').click();
        await heading(page, 'Log in').waitFor();
        assert.equal(await token(page), null);
        assert.deepEqual(await page.context().cookies(), []);
      },
    );
  });

  test('an operator credits an account and blocks it; the customer sees both', async () => {
    const customer = await newPage(browser);
    const operator = await newPage(browser);
    await withScreenshots(
      'operator credit and block',
      () => [customer, operator],
      async () => {
        const account = await createAccount(nubis, { credit: 0 });
        await logIn(customer, account.email, account.password);
        await customer.getByRole('link', { name: 'Billing' }).click();
        await customer.locator('.big', { hasText: '$0.00' }).waitFor();

        // The operator signs in with the operator token and finds the account.
        await operator.goto(`${nubis.url}/#/admin`);
        await heading(operator, 'Operator sign-in').waitFor();
        await field(operator, 'Operator token').fill(ADMIN_TOKEN);
        await button(operator, 'Sign in as operator').click();
        await heading(operator, 'Accounts').waitFor();
        await field(operator, 'Email').fill(account.email);
        await button(operator, 'Search').click();
        await operator.getByRole('link', { name: account.email }).click();
        await heading(operator, account.email).waitFor();

        // Credit with a note.
        await field(operator, 'Amount').fill('25');
        await field(operator, 'Note').fill('welcome credit');
        await button(operator, 'Add credit').click();
        await operator.getByText('Credited.').waitFor();
        const transactions = await nubis.request('GET', '/v1.3/transaction/list', { token: account.token });
        assert.equal(transactions.body.transactions[0].amount, 25);

        await customer.reload();
        await customer.locator('.big', { hasText: '$25.00' }).waitFor();

        // Block, with a confirmation.
        await button(operator, 'Block account').click();
        await operator.getByRole('dialog').getByRole('button', { name: 'Yes, block' }).click();
        await operator.getByText('Blocked.').waitFor();

        // The customer's next change is refused, and every page then says why.
        await customer.getByRole('link', { name: 'SSH keys' }).click();
        await field(customer, 'Name').fill('laptop');
        await field(customer, 'Public key').fill(ecdsaPublicKey('blocked@laptop'));
        await button(customer, 'Add SSH key').click();
        await customer
          .locator('.banner')
          .filter({ hasText: /blocked/ })
          .waitFor();
        await customer.getByRole('link', { name: 'Servers' }).click();
        await customer
          .locator('.banner')
          .filter({ hasText: /blocked/ })
          .waitFor();
        await button(customer, 'Log out').click();
        await field(customer, 'Email').fill(account.email);
        await field(customer, 'Password').fill(account.password);
        await button(customer, 'Log in').click();
        await customer
          .getByRole('alert')
          .filter({ hasText: /blocked/ })
          .waitFor();
      },
    );
  });

  test('a forgotten password: the temporary one from the mail logs in, a new one is set, tokens are managed', async () => {
    const page = await newPage(browser);
    await withScreenshots(
      'password reset and tokens',
      () => [page],
      async () => {
        const account = await createAccount(nubis);
        await page.goto(`${nubis.url}/`);
        await page.getByRole('link', { name: 'Forgot your password?' }).click();
        await heading(page, 'Reset password').waitFor();
        await field(page, 'Email').fill(account.email);
        await button(page, 'Send a temporary password').click();
        await page
          .getByRole('status')
          .filter({ hasText: /temporary password/ })
          .waitFor();
        const outbox = await nubis.admin('GET', `/admin/outbox?to=${encodeURIComponent(account.email)}`);
        const mail = outbox.body.messages.find((m: { subject: string }) => /temporary/i.test(m.subject));
        const temporary = /Temporary password: (\S+)/.exec(mail.text)?.[1];
        assert.ok(temporary);
        await logIn(page, account.email, temporary);

        await page.getByRole('link', { name: 'Settings' }).click();
        await field(page, 'New password').fill('my-new-password-42');
        await button(page, 'Change password').click();
        await page.getByText('Password changed.').waitFor();

        // Tokens: create (shown once, with a copy button), rename, remove.
        await page.getByRole('link', { name: 'Tokens' }).click();
        await field(page, 'Token name').fill('ci');
        await button(page, 'Create token').click();
        await button(page, 'Copy token ci').first().waitFor();
        await button(page, 'Rename ci').click();
        await field(page, 'New name').fill('deploy');
        await button(page, 'Save name').click();
        await page.getByRole('cell', { name: 'deploy', exact: true }).waitFor();
        // The confirmation by keyboard: Escape dismisses it and nothing is removed; Enter on the action confirms.
        await button(page, 'Remove deploy').focus();
        await page.keyboard.press('Enter');
        await page.getByRole('dialog').waitFor();
        await page.keyboard.press('Escape');
        await page.getByRole('dialog').waitFor({ state: 'hidden' });
        await page.getByRole('cell', { name: 'deploy', exact: true }).waitFor();
        await button(page, 'Remove deploy').click();
        await page.getByRole('dialog').getByRole('button', { name: 'Yes, remove' }).focus();
        await page.keyboard.press('Enter');
        await page.getByText('Token removed.').waitFor();
        const tokens = await nubis.request('GET', '/v1.3/account/token_list', { token: await token(page) });
        assert.deepEqual(
          tokens.body.tokens
            .map((t: { name: string }) => t.name)
            .filter((name: string) => name === 'deploy' || name === 'ci'),
          [],
        );

        await button(page, 'Log out').click();
        await logIn(page, account.email, 'my-new-password-42');
      },
    );
  });

  test('the region forms: a floating IP and a VPC are made in the region chosen; no region, the field says why', async () => {
    const page = await newPage(browser);
    await withScreenshots(
      'floating IP and VPC forms',
      () => [page],
      async () => {
        const account = await createAccount(nubis);
        await logIn(page, account.email, account.password);
        const regions = (await nubis.request('GET', '/v1.3/region/list')).body.regions;
        const offering = (feature: string) =>
          Object.entries(regions as Record<string, { features: Record<string, boolean> }>)
            .filter(([, r]) => r.features[feature])
            .map(([id]) => id);
        const ipRegion = offering('floating_ip').at(-1);
        const vpcRegion = offering('virtual_private_cloud').at(-1);
        assert.ok(ipRegion && vpcRegion, 'a region offers floating IPs and VPCs');
        const regionChoices = async () =>
          (await field(page, 'Region')
            .locator('option')
            .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))) as string[];

        // Floating IPs: the Region select offers the regions that have them, a placeholder first.
        await page.getByRole('link', { name: 'Floating IPs' }).click();
        await heading(page, 'Floating IPs').waitFor();
        const ipForm = page.getByRole('form', { name: 'Create floating IP' });
        await ipForm.locator('option', { hasText: `(${ipRegion})` }).waitFor({ state: 'attached' });
        assert.deepEqual(await regionChoices(), ['', ...offering('floating_ip')]);
        // Without a region the API's reason shows under the Region field.
        await button(page, 'Create floating IP').click();
        await ipForm.locator('.field-error').waitFor();
        assert.equal(await field(page, 'Region').getAttribute('aria-invalid'), 'true');
        await field(page, 'Region').selectOption(ipRegion);
        await field(page, 'IP version').selectOption('6');
        await button(page, 'Create floating IP').click();
        await page.getByText('Floating IP created.').waitFor();
        const ips = (await nubis.request('GET', '/v1.3/floating_ip/list', { token: account.token })).body;
        assert.equal(ips.floating_ips.length, 1);
        assert.equal(String(ips.floating_ips[0].region_id), ipRegion);
        assert.equal(ips.floating_ips[0].prefix, 64, 'IPv6: a /64 block');
        await page
          .getByRole('cell', { name: `${ips.floating_ips[0].address}/${ips.floating_ips[0].prefix}` })
          .waitFor();

        // VPCs: the same region choice, then a name; the name field empties once it is made.
        await page.getByRole('link', { name: 'VPCs' }).click();
        await heading(page, 'VPCs').waitFor();
        const vpcForm = page.getByRole('form', { name: 'Create VPC' });
        await vpcForm.locator('option', { hasText: `(${vpcRegion})` }).waitFor({ state: 'attached' });
        assert.deepEqual(await regionChoices(), ['', ...offering('virtual_private_cloud')]);
        await field(page, 'Region').selectOption(vpcRegion);
        await field(page, 'Name').fill('backend');
        await button(page, 'Create VPC').click();
        await page.getByText('VPC created.').waitFor();
        await page.getByRole('cell', { name: 'backend', exact: true }).waitFor();
        assert.equal(await field(page, 'Name').inputValue(), '');
        const vpcs = (await nubis.request('GET', '/v1.3/vpc/list', { token: account.token })).body.vpcs;
        assert.deepEqual(
          vpcs.map((v: { name: string; region: number }) => [v.name, String(v.region)]),
          [['backend', vpcRegion]],
        );
      },
    );
  });

  test('a list of 1,000 servers renders only the rows in view and scrolls to the last one', async () => {
    // A catalog whose first region has room for 4,000 addresses (the shipped pools are small).
    const dir = mkdtempSync(join(tmpdir(), 'nubis-e2e-catalog-'));
    const catalog = JSON.parse(readFileSync(new URL('../../src/catalog/catalog.json', import.meta.url), 'utf8'));
    catalog.regions.find((r: { id: number }) => r.id === standardServer.region).pools.v4 = ['10.64.0.0/20'];
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog));
    const big = await startTestInstance({ CATALOG_FILE: join(dir, 'catalog.json'), SERVERS_LIMIT: '1000' });
    const page = await newPage(browser);
    try {
      await withScreenshots(
        'thousand servers',
        () => [page],
        async () => {
          const account = await createAccount(big, { credit: 100_000 });
          for (let start = 0; start < 1000; start += 50)
            await Promise.all(
              Array.from({ length: 50 }, async (_, offset) => {
                const n = String(start + offset).padStart(4, '0');
                const created = await big.request('POST', '/v1.3/server/create', {
                  token: account.token,
                  body: { ...standardServer, hostname: `node-${n}.example.com`, label: `node-${n}` },
                });
                assert.equal(created.status, 201, JSON.stringify(created.body));
              }),
            );
          await logIn(page, account.email, account.password, big.url);
          await page.getByText('1000 of 1000 servers').waitFor();
          const list = page.getByRole('region', { name: 'Server list' });
          const rendered = await list.getByRole('link').count();
          assert.ok(rendered > 0 && rendered < 100, `${rendered} rows rendered`);
          await list.evaluate((element) => {
            element.scrollTop = element.scrollHeight;
          });
          await list.getByRole('link', { name: 'node-0999' }).waitFor();
          assert.ok((await list.getByRole('link').count()) < 100);
          await field(page, 'Filter servers').fill('node-050');
          await page.getByText('10 of 1000 servers').waitFor();
        },
      );
    } finally {
      await big.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function token(page: Page): Promise<string | null> {
  return page.evaluate(() => sessionStorage.getItem('nubis.token'));
}
