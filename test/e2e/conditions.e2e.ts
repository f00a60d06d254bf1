// The machine's conditions in the console (issue 36): after the emulator's machine faults, the
// server's page lists the conditions with their reasons, and the owner's and the operator's
// server lists mark a lost machine, a create given up and an unreachable engine, each with its reason.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { createAccount } from '../support/accounts.ts';
import { deployServer, orderServer } from '../support/servers.ts';
import { consoleSuite, heading, newPage, signIn, signInOperator, withScreenshots } from './browser.ts';

const { nubis, browser } = await consoleSuite();
const account = await createAccount(nubis);

async function inject(server: string, fault: 'machine_lost' | 'create_failed' | 'engine_unreachable'): Promise<void> {
  const answer = await nubis.admin('POST', '/admin/faults/machines', { server, fault });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
}

/** The row of a table with a cell that reads exactly `name` (a server, a condition). */
const rowOf = (scope: Locator, name: string) =>
  scope.locator('tbody tr').filter({ has: scope.page().getByRole('cell', { name, exact: true }) });

describe("the machine's conditions in the console", () => {
  test('a lost machine and an unreachable engine are told on the server page and in both lists', async () => {
    const page = await newPage(browser);
    await withScreenshots(
      'machine conditions',
      () => [page],
      async () => {
        const lost = await deployServer(nubis, account.token, { label: 'lost-1' });
        const silent = await deployServer(nubis, account.token, { label: 'silent-1' });
        const healthy = await deployServer(nubis, account.token, { label: 'healthy-1' });
        await inject(lost.uuid, 'machine_lost');
        await inject(silent.uuid, 'engine_unreachable');

        await signIn(page, nubis.url, account);
        await page.goto(`${nubis.url}/#/servers`);
        const list = page.getByRole('region', { name: 'Server list' });
        const lostRow = rowOf(list, 'lost-1');
        await lostRow.locator('.badge', { hasText: /^lost$/ }).waitFor();
        await lostRow.getByText('InstanceMissing').waitFor();
        const silentRow = rowOf(list, 'silent-1');
        await silentRow.locator('.badge', { hasText: /^engine unreachable$/ }).waitFor();
        await silentRow.getByText('EngineUnreachable').waitFor();
        assert.equal(await rowOf(list, 'healthy-1').locator('.badge.condition').count(), 0);

        await page.goto(`${nubis.url}/#/servers/${lost.uuid}`);
        await heading(page, 'lost-1').waitFor();
        await page.locator('.page-header .badge', { hasText: /^lost$/ }).waitFor();
        const conditions = page.getByRole('region', { name: 'Conditions', exact: true });
        const present = rowOf(conditions, 'MachinePresent');
        await present.getByRole('cell', { name: 'InstanceMissing' }).waitFor();
        const cells = await present.locator('td, th').allTextContents();
        assert.equal(cells[1], 'false', cells.join(' | '));
        assert.match(cells.join(' '), /no longer has the machine it made/);
        assert.match(cells.join(' '), /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
        await rowOf(conditions, 'Degraded').getByRole('cell', { name: 'true', exact: true }).waitFor();

        await page.goto(`${nubis.url}/#/servers/${healthy.uuid}`);
        await heading(page, 'healthy-1').waitFor();
        await page
          .getByRole('region', { name: 'Conditions', exact: true })
          .getByText('The engine has reported nothing out of the ordinary.')
          .waitFor();

        // The operator's list of servers: the same marks and reasons.
        await signInOperator(page, nubis.url);
        await page.goto(`${nubis.url}/#/admin/servers`);
        await heading(page, 'Servers across accounts').waitFor();
        const operatorLost = rowOf(page.locator('table'), 'lost-1');
        await operatorLost.locator('.badge', { hasText: /^lost$/ }).waitFor();
        await operatorLost.getByText('InstanceMissing').waitFor();
        const operatorSilent = rowOf(page.locator('table'), 'silent-1');
        await operatorSilent.locator('.badge', { hasText: /^engine unreachable$/ }).waitFor();
      },
    );
  });

  test('a create the engine gave up is marked in both lists and told on its page', async () => {
    const page = await newPage(browser);
    await withScreenshots(
      'create failed',
      () => [page],
      async () => {
        const unmade = await orderServer(nubis, account.token, { label: 'unmade-1' });
        await inject(unmade.uuid, 'create_failed');

        await signIn(page, nubis.url, account);
        await page.goto(`${nubis.url}/#/servers`);
        const list = page.getByRole('region', { name: 'Server list' });
        const row = rowOf(list, 'unmade-1');
        await row.locator('.badge', { hasText: /^create failed$/ }).waitFor();
        await row.getByText('CreateFailed').waitFor();
        assert.equal(await row.locator('.badge', { hasText: /^stopped$/ }).count(), 1, 'shown stopped');
        // The list's search finds it by its mark.
        await page.getByLabel('Filter servers').fill('create failed');
        await page.getByText(/^1 of \d+ servers$/).waitFor();
        await row.waitFor();

        await page.goto(`${nubis.url}/#/servers/${unmade.uuid}`);
        await heading(page, 'unmade-1').waitFor();
        await page.locator('.page-header .badge', { hasText: /^create failed$/ }).waitFor();
        await page.getByText(/needs a machine: this one was never made/).waitFor();
        assert.equal(await page.getByRole('button', { name: 'Start', exact: true }).isDisabled(), true);
        assert.equal(await page.getByRole('button', { name: 'Reinstall', exact: true }).isDisabled(), false);

        await signInOperator(page, nubis.url);
        await page.goto(`${nubis.url}/#/admin/servers`);
        await heading(page, 'Servers across accounts').waitFor();
        const operatorRow = rowOf(page.locator('table'), 'unmade-1');
        await operatorRow.locator('.badge', { hasText: /^create failed$/ }).waitFor();
        await operatorRow.getByText('CreateFailed').waitFor();
      },
    );
  });

  test("a lost server's page disables the actions that need a machine, and says why", async () => {
    const page = await newPage(browser);
    await withScreenshots(
      'lost machine actions',
      () => [page],
      async () => {
        const lost = await deployServer(nubis, account.token, { label: 'lost-2' });
        const healthy = await deployServer(nubis, account.token, { label: 'healthy-2' });
        await inject(lost.uuid, 'machine_lost');
        await signIn(page, nubis.url, account);

        await page.goto(`${nubis.url}/#/servers/${lost.uuid}`);
        await heading(page, 'lost-2').waitFor();
        await page.locator('.page-header .badge', { hasText: /^lost$/ }).waitFor();
        const reason = page.getByText(/needs a machine: this one is lost/);
        await reason.waitFor();
        // What the API answers 409 for: disabled, each described by the reason.
        for (const name of ['Start', 'Stop', 'Reboot', 'Rescue mode', 'Resize', 'Take snapshot']) {
          const button = page.getByRole('button', { name, exact: true });
          assert.equal(await button.isDisabled(), true, `${name} disabled`);
          const described = await button.getAttribute('aria-describedby');
          assert.ok(described, `${name} says why`);
          assert.match(await page.locator(`#${described}`).innerText(), /lost/);
        }
        // The recovery stays open.
        assert.equal(await page.getByRole('button', { name: 'Reinstall', exact: true }).isDisabled(), false);
        assert.equal(await page.getByRole('button', { name: 'Remove server', exact: true }).isDisabled(), false);

        await page.goto(`${nubis.url}/#/servers/${healthy.uuid}`);
        await heading(page, 'healthy-2').waitFor();
        await page.getByRole('button', { name: 'Rescue mode', exact: true }).waitFor();
        assert.equal(await page.getByText(/needs a machine/).count(), 0);
        assert.equal(await page.getByRole('button', { name: 'Reboot', exact: true }).isDisabled(), false);
      },
    );
  });
});
