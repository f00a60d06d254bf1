// Chromium for the console's end-to-end tests: Debian's /usr/bin/chromium (CHROMIUM_PATH
// overrides) driven by playwright-core, headless, with the flags that keep it off the network.
// `step` runs a test body and saves a screenshot of every open page when it fails.

import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { ADMIN_TOKEN, startTestInstance, type TestInstance } from '../support/instance.ts';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const screenshotDir = resolve(import.meta.dirname, '../../test-results');

export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export async function launch(): Promise<Browser> {
  if (!existsSync(chromiumPath)) throw new Error(`Chromium not found at ${chromiumPath}`);
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs });
}

/**
 * What every browser suite starts with, at the file's top level (`const { nubis, browser } =
 * await consoleSuite()`): a Nubis on the simulated driver (`env` added) serving the console, and
 * Chromium; both closed after the file's tests.
 */
export async function consoleSuite(
  env: Record<string, string> = {},
): Promise<{ nubis: TestInstance; browser: Browser }> {
  const nubis = await startTestInstance(env);
  const browser = await launch();
  after(async () => {
    await browser.close();
    await nubis.close();
  });
  return { nubis, browser };
}

/** Runs `body`; when it throws, every page in `pages()` is photographed into test-results/. */
export async function withScreenshots(name: string, pages: () => Page[], body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    mkdirSync(screenshotDir, { recursive: true });
    const slug = name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
    for (const [index, page] of pages().entries()) {
      const path = join(screenshotDir, `${slug}-${index}.png`);
      await page.screenshot({ path, fullPage: true }).catch(() => {});
      console.error(`screenshot of the failure: ${path}`);
    }
    throw error;
  }
}

/** A fresh context (its own sessionStorage) with the console's usual viewport. */
export async function newPage(browser: Browser, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(20_000);
  return context.newPage();
}

export const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true });
export const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });
export const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });

/** Logs `who` in through the console's form at `baseUrl` and waits for the server list. */
export async function signIn(page: Page, baseUrl: string, who: { email: string; password: string }): Promise<void> {
  await page.goto(`${baseUrl}/#/login`);
  await field(page, 'Email').fill(who.email);
  await field(page, 'Password').fill(who.password);
  await button(page, 'Log in').click();
  await heading(page, 'Servers').waitFor();
}

/** Signs the operator in with the operator token at `baseUrl` and waits for the accounts page. */
export async function signInOperator(page: Page, baseUrl: string): Promise<void> {
  await page.goto(`${baseUrl}/#/admin`);
  await field(page, 'Operator token').fill(ADMIN_TOKEN);
  await button(page, 'Sign in as operator').click();
  await heading(page, 'Accounts').waitFor();
}

/**
 * Follows `page`'s requests so a test can wait until what a page loads has arrived and been drawn.
 * Playwright's 'networkidle' does not serve here: the console navigates within one document (by its
 * hash), whose load states were reached long before, so waiting for them returns at once.
 */
export function watchRequests(page: Page): { settled: (quietMs?: number) => Promise<void> } {
  const inFlight = new Set<unknown>();
  let changed = Date.now();
  const start = (request: unknown) => {
    inFlight.add(request);
    changed = Date.now();
  };
  const end = (request: unknown) => {
    inFlight.delete(request);
    changed = Date.now();
  };
  page.on('request', start);
  page.on('requestfinished', end);
  page.on('requestfailed', end);
  return {
    async settled(quietMs = 200) {
      const deadline = Date.now() + 20_000;
      while (inFlight.size > 0 || Date.now() - changed < quietMs) {
        if (Date.now() > deadline) throw new Error(`requests still in flight after 20 s: ${inFlight.size}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Two frames: the answers' renders, and what resize observers set in reply, are on screen.
      await page.evaluate(
        () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(undefined)))),
      );
    },
  };
}
