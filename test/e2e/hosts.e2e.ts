// The operator's Hosts page (issue 41): each host with its status and servers, a host drained from
// the page (its server moved off, the host shown evacuated) and restored, and the host of each
// server in the operator's server list.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { createAccount } from '../support/accounts.ts';
import { deployServer } from '../support/servers.ts';
import { consoleSuite, heading, newPage, signInOperator, withScreenshots } from './browser.ts';

const { nubis, browser } = await consoleSuite({ SIM_HOSTS: '2' });
const account = await createAccount(nubis);

/** The row of a table with a cell that reads exactly `name`. */
const rowOf = (scope: Locator, name: string) =>
  scope.locator('tbody tr').filter({ has: scope.page().getByRole('cell', { name, exact: true }) });

describe('the Hosts page', () => {
  test('hosts with status and servers; a host drained and restored from the page', async () => {
    const page = await newPage(browser);
    await withScreenshots(
      'hosts',
      () => [page],
      async () => {
        const server = await deployServer(nubis, account.token, { label: 'placed-1' });
        const host = (await nubis.admin('GET', `/admin/servers/${server.uuid}`)).body.host as string;
        assert.ok(host);

        await signInOperator(page, nubis.url);
        await page.goto(`${nubis.url}/#/admin/servers`);
        await heading(page, 'Servers across accounts').waitFor();
        await rowOf(page.locator('table'), 'placed-1').getByRole('cell', { name: host, exact: true }).waitFor();

        await page.getByRole('link', { name: 'Hosts' }).click();
        await heading(page, 'Hosts').waitFor();
        const row = rowOf(page.locator('table'), host);
        await row.locator('.badge', { hasText: /^online$/ }).waitFor();
        await row.getByRole('cell', { name: '1', exact: true }).waitFor();

        await row.getByRole('button', { name: `Drain ${host}` }).click();
        await page.getByRole('button', { name: 'Yes, drain it' }).click();
        await row.locator('.badge', { hasText: /^evacuated$/ }).waitFor();
        assert.notEqual((await nubis.admin('GET', `/admin/servers/${server.uuid}`)).body.host, host);

        await row.getByRole('button', { name: `Restore ${host}` }).click();
        await page.getByRole('button', { name: 'Yes, restore it' }).click();
        await row.locator('.badge', { hasText: /^online$/ }).waitFor();
        assert.equal((await nubis.admin('GET', `/admin/servers/${server.uuid}`)).body.host, host);
      },
    );
  });
});
