// @nubis/testing: Nubis inside a client's test suite. `startNubis()` runs the emulator in the
// test's own process — port 0, storage in memory, nothing written — and hands back its URL, an
// operator client, ready-made accounts, the clock, fault rules and a reset. It assembles the
// server from its two public entry points (the configuration and the process assembly) and
// talks to it over HTTP like any client, through @nubis/sdk.

import { enableCompileCache } from 'node:module';
import { createNubisClient, unwrap, type NubisClient, type operations } from '@nubis/sdk';

export type FaultRuleInput = operations['adminAddFaultRule']['requestBody']['content']['application/json'];
export type FaultRule = operations['adminAddFaultRule']['responses'][201]['content']['application/json'];

export interface StartOptions {
  /**
   * NUBIS_SEED: every generated value (uuids, tokens, passwords, addresses) follows from it and
   * the order of requests, and the clock starts at an instant it picks and stands still until
   * `advance()`. The same test then sees the same answers, run after run.
   */
  seed?: string;
  /** Environment variables as an operator sets them (`SIM_PROVISION_SECONDS`, `RATE_…`); they win over the defaults here. */
  env?: Record<string, string>;
}

export interface TestAccount {
  id: number;
  uuid: string;
  email: string;
  password: string;
  token: string;
  /** An SDK client that sends the account's token. */
  client: NubisClient;
}

export interface AccountOptions {
  /** Default: `user-<n>@example.com`, n counting from 1 (again after each reset). */
  email?: string;
  /** Dollars credited (default 100; 0 for none). */
  credit?: number;
}

export interface Nubis {
  /** Where it listens, e.g. `http://127.0.0.1:39201`. */
  url: string;
  /** The operator's token (ADMIN_TOKEN). */
  adminToken: string;
  /** An SDK client with the operator's token (`/admin/…`). */
  operator: NubisClient;
  /** A new account: registered, activated, credited, with a token and a client. */
  account(options?: AccountOptions): Promise<TestAccount>;
  /** Moves the virtual clock forward; the work due meanwhile (transitions, billing, backups) is done when it answers. Answers the new time. */
  advance(seconds: number): Promise<string>;
  /** Adds a fault rule (`POST /admin/faults`). */
  fault(rule: FaultRuleInput): Promise<FaultRule>;
  /** Deletes every account, resource and fault rule; seeded, it starts over as at start (ids, clock, generated values). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const adminToken = 'nubis-testing-admin-token';
const password = 'nubis-testing-password';

/** Test defaults: the emulator preset, on port 0, in memory, quiet, with the cheapest password hashing. */
function environment(options: StartOptions): Record<string, string> {
  return {
    NUBIS_MODE: 'emulator',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: ':memory:',
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'silent',
    PASSWORD_HASH_COST: '10',
    // Periodic work happens when the clock is advanced, not on a timer in the middle of a test.
    SWEEPS: 'false',
    ...(options.seed === undefined ? {} : { NUBIS_SEED: options.seed }),
    ...options.env,
  };
}

/** Starts Nubis in this process; `close()` it when the tests are done. */
export async function startNubis(options: StartOptions = {}): Promise<Nubis> {
  // The server's modules load with the first start, from Node's on-disk code cache (as
  // bin/nubis.ts does), and from the prebuilt bundle while it matches the sources
  // (src/prebuilt.ts): most of a first start is loading them, and a test run starts often.
  enableCompileCache();
  const [{ loadConfig }, { loadInstance }] = await Promise.all([
    import('../../src/config.ts'),
    import('../../src/prebuilt.ts'),
  ]);
  const { startInstance, saveCodeCache } = await loadInstance();
  const config = loadConfig(environment(options));
  const running = await startInstance(config);
  // The first process after a build writes the bundle's code cache; the next ones read it.
  saveCodeCache();
  const url = running.url;
  const token = config.adminToken ?? adminToken;
  const operator = createNubisClient({ baseUrl: url, token });
  let accounts = 0;

  return {
    url,
    adminToken: token,
    operator,
    async account(accountOptions = {}) {
      const email = accountOptions.email ?? `user-${++accounts}@example.com`;
      const registered = await unwrap(
        createNubisClient({ baseUrl: url }).POST('/v1.3/account/register', {
          body: { email, password, firstname: 'Test', lastname: 'User', accept_tos: true, country: 'NL' },
        }),
      );
      const client = createNubisClient({ baseUrl: url, token: registered.token });
      const info = await unwrap(client.GET('/v1.3/account/info'));
      if (!info.activated)
        throw new Error(`${email} is not active: startNubis needs AUTO_ACTIVATE (the emulator preset's default)`);
      const credit = accountOptions.credit ?? 100;
      if (credit > 0)
        await unwrap(
          operator.POST('/admin/accounts/{account}/credit', {
            params: { path: { account: String(info.id) } },
            body: { amount: credit, note: 'test credit' },
          }),
        );
      return { id: info.id, uuid: info.uuid, email, password, token: registered.token, client };
    },
    async advance(seconds) {
      return (await unwrap(operator.POST('/admin/clock/advance', { body: { seconds } }))).now;
    },
    fault: (rule) => unwrap(operator.POST('/admin/faults', { body: rule })),
    async reset() {
      await unwrap(operator.POST('/admin/reset'));
      accounts = 0;
    },
    close: () => running.close(),
  };
}
