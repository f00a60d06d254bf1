// Every way of arriving at the console, signed in and signed out: the bare address (a
// bookmark, a typed address, a mail's link), a deep link, a reload, the back and forward
// buttons. Each must show a page, never an empty #app.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createAccount } from '../support/accounts.ts';
import { deployServer } from '../support/servers.ts';
import { button, consoleSuite, field, heading, newPage, withScreenshots } from './browser.ts';

const { nubis, browser } = await consoleSuite();
const account = await createAccount(nubis);
const serverUuid = (await deployServer(nubis, account.token)).uuid;

async function logIn(page: Page): Promise<void> {
  await field(page, 'Email').fill(account.email);
  await field(page, 'Password').fill(account.password);
  await button(page, 'Log in').click();
}

async function signedIn(): Promise<Page> {
  const page = await newPage(browser);
  await page.goto(`${nubis.url}/#/login`);
  await logIn(page);
  await heading(page, 'Servers').waitFor();
  return page;
}

const hash = (page: Page) => new URL(page.url()).hash;

describe('arriving at the console', () => {
  test('signed in, the bare address shows the server list', async () => {
    const page = await signedIn();
    await withScreenshots(
      'signed in bare address',
      () => [page],
      async () => {
        await page.goto(`${nubis.url}/`);
        await heading(page, 'Servers').waitFor();
        assert.equal(hash(page), '#/servers');
        await page.getByRole('link', { name: 'web 1' }).waitFor();
        // A second time, and with an empty hash: the same.
        await page.goto(`${nubis.url}/#`);
        await heading(page, 'Servers').waitFor();
        await page.goto(`${nubis.url}/#/`);
        await page.waitForURL(/#\/servers$/);
        await heading(page, 'Servers').waitFor();
      },
    );
  });

  test('signed in, a deep link and a reload show the page linked to', async () => {
    const page = await signedIn();
    await withScreenshots(
      'signed in deep link and reload',
      () => [page],
      async () => {
        await page.goto(`${nubis.url}/#/servers/${serverUuid}`);
        await heading(page, 'web 1').waitFor();
        await page.reload();
        await heading(page, 'web 1').waitFor();
        await page.goto(`${nubis.url}/#/billing`);
        await heading(page, 'Billing').waitFor();
        await page.reload();
        await heading(page, 'Billing').waitFor();
        // The log-in form is no place for a signed-in customer: it leads to the servers.
        await page.goto(`${nubis.url}/#/login`);
        await heading(page, 'Servers').waitFor();
      },
    );
  });

  test('signed in, back and forward retrace the pages', async () => {
    const page = await signedIn();
    await withScreenshots(
      'signed in back and forward',
      () => [page],
      async () => {
        await page.getByRole('link', { name: 'web 1' }).click();
        await heading(page, 'web 1').waitFor();
        await page.getByRole('link', { name: 'Billing' }).click();
        await heading(page, 'Billing').waitFor();
        await page.goBack();
        await heading(page, 'web 1').waitFor();
        await page.goBack();
        await heading(page, 'Servers').waitFor();
        await page.goForward();
        await heading(page, 'web 1').waitFor();
        // Back from a bare-address arrival returns to where the tab was, not to an empty page.
        await page.goto(`${nubis.url}/`);
        await heading(page, 'Servers').waitFor();
        await page.goBack();
        await heading(page, 'web 1').waitFor();
      },
    );
  });

  test('signed out, the bare address and a deep link ask for a log-in, then show what was asked for', async () => {
    const page = await newPage(browser);
    await withScreenshots(
      'signed out arrivals',
      () => [page],
      async () => {
        await page.goto(`${nubis.url}/`);
        await heading(page, 'Log in').waitFor();
        await page.reload();
        await heading(page, 'Log in').waitFor();
        await page.goto(`${nubis.url}/#/servers/${serverUuid}`);
        await heading(page, 'Log in').waitFor();
        await logIn(page);
        await heading(page, 'web 1').waitFor();
        assert.equal(hash(page), `#/servers/${serverUuid}`);
      },
    );
  });

  test('signed out by logging out, back does not bring the pages back', async () => {
    const page = await signedIn();
    await withScreenshots(
      'logged out back',
      () => [page],
      async () => {
        await page.getByRole('link', { name: 'web 1' }).click();
        await heading(page, 'web 1').waitFor();
        await button(page, 'Log out').click();
        await heading(page, 'Log in').waitFor();
        await page.goBack();
        await heading(page, 'Log in').waitFor();
        assert.equal(await page.getByRole('heading', { name: 'web 1' }).count(), 0);
        await page.goto(`${nubis.url}/`);
        await heading(page, 'Log in').waitFor();
      },
    );
  });
});
