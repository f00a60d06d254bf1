// The backup drill: `nubis backup` taken while a real `nubis serve` (SQLite in a file DATA_DIR)
// registers accounts, credits them and creates servers; a fresh instance started on the copy
// holds every account, balance, server, transaction and document as they were when the backup
// was taken: whatever was finished before it began is there and equal, whatever began after it
// ended is not, and the copy passes SQLite's integrity check. With DATABASE_URL it refuses,
// pointing to PostgreSQL's own tools.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { ADMIN_TOKEN } from '../../test/support/instance.ts';
import { registerBody } from '../../test/support/accounts.ts';
import { standardServer } from '../../test/support/servers.ts';

const root = new URL('../../', import.meta.url);
const node = process.execPath;

interface Served {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `nubis serve` on a DATA_DIR (SQLite), once it listens. */
async function serve(dataDir: string): Promise<Served> {
  const child = spawn(node, ['bin/nubis.ts', 'serve'], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
      CLOCK: 'virtual',
      AUTO_ACTIVATE: 'true',
      PASSWORD_HASH_COST: '10',
      SWEEPS: 'false',
      SHUTDOWN_GRACE_SECONDS: '0',
      // No machine changes state while the drill runs (the virtual clock flows with real time).
      SIM_PROVISION_SECONDS: '86400',
      KEEP_ALIVE_TIMEOUT_MS: '600000',
      LOG_LEVEL: 'info',
      RATE_REGISTER_PER_MINUTE: '1000000',
      RATE_ACCOUNT_INFO_PER_MINUTE: '1000000',
      RATE_TOKEN_PER_SECOND: '1000000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      const match = /listening at (http:\/\/[^\s"]+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    void exited.then(() => reject(new Error(`nubis serve exited before listening: ${output}`)));
  });
  return {
    url,
    child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Runs `nubis backup <file>` against a DATA_DIR (and a DATABASE_URL when given): exit code and output. */
function runBackup(env: Record<string, string>, file: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(node, ['bin/nubis.ts', 'backup', file], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

async function call(base: string, method: string, path: string, token: string | null, body?: unknown) {
  const answer = await fetch(base + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await answer.text();
  return { status: answer.status, body: text ? JSON.parse(text) : null };
}

/** What the API shows of an account: what must be equal after a restore. */
async function accountView(base: string, id: number, token: string) {
  const info = await call(base, 'GET', '/v1.3/account/info', token);
  const servers = await call(base, 'GET', '/v1.3/server/list', token);
  const transactions = await call(base, 'GET', `/admin/accounts/${id}/transactions`, ADMIN_TOKEN);
  const documents = await call(base, 'GET', `/admin/accounts/${id}/documents`, ADMIN_TOKEN);
  return {
    status: [info.status, servers.status, transactions.status, documents.status],
    ledgerBalance: ledgerBalance(info.body),
    info: withoutClockFigures(info.body),
    servers: withoutClockTraffic(servers.body),
    transactions: transactions.body,
    documents: documents.body,
  };
}

/**
 * The account's figures that follow the clock (when the balance runs out, and the cost so far):
 * the virtual clock flows with real time, so they move between two readings of the same rows.
 */
function withoutClockFigures(info: { balance?: number; billing?: Record<string, unknown> }) {
  const { duedate: _due, secondsdue: _seconds, usage: _usage, ...billing } = info.billing ?? {};
  // The balance less the cost so far, in cents: it moves only by a rounding between two readings.
  const { balance: _balance, ...rest } = info;
  return { ...rest, billing };
}

/** The servers less their traffic so far, which the simulated driver derives from the flowing clock. */
function withoutClockTraffic(list: { servers?: { bandwidth?: Record<string, unknown> }[] }) {
  return {
    ...list,
    servers: (list.servers ?? []).map(({ bandwidth, ...server }) => {
      const { usage: _usage, ...rest } = bandwidth ?? {};
      return { ...server, bandwidth: rest };
    }),
  };
}

/** The balance with the cost so far added back: what the ledger holds, whenever it is read. */
function ledgerBalance(info: { balance: number; billing: { usage: number } }): number {
  return info.balance + info.billing.usage;
}

interface Made {
  id: number;
  token: string;
  began: number;
  finished: number;
}

/** Registers, credits and gives a server to one account; when it began and finished (ms, this clock). */
async function makeAccount(base: string): Promise<Made> {
  const began = performance.now();
  const registered = await call(base, 'POST', '/v1.3/account/register', null, registerBody());
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
  const token: string = registered.body.token;
  const info = await call(base, 'GET', '/v1.3/account/info', token);
  const id: number = info.body.id;
  const credited = await call(base, 'POST', `/admin/accounts/${id}/credit`, ADMIN_TOKEN, { amount: 50, note: 'drill' });
  assert.equal(credited.status, 201, JSON.stringify(credited.body));
  const created = await call(base, 'POST', '/v1.3/server/create', token, { ...standardServer, label: `drill ${id}` });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return { id, token, began, finished: performance.now() };
}

// Two instances, a month of clock and a write load: a hang guard of its own (the suite's 120 s was outlasted at load ~20).
test('a backup taken under write load restores into a fresh instance equal to its moment', {
  timeout: 600_000,
}, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'nubis-drill-'));
  const restoredDir = mkdtempSync(join(tmpdir(), 'nubis-restored-'));
  const file = join(mkdtempSync(join(tmpdir(), 'nubis-backup-')), 'nubis-backup.db');
  let original: Served | undefined;
  let restored: Served | undefined;
  try {
    original = await serve(dataDir);
    const base = original.url;
    // Accounts from an earlier month, so issued invoice documents are part of the backup.
    const early = [await makeAccount(base), await makeAccount(base)];
    const clock = await call(base, 'GET', '/admin/clock', ADMIN_TOKEN);
    const now = new Date(Date.parse(clock.body.now));
    const toNextMonth = Math.ceil(
      (Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000 + 3600,
    );
    assert.equal((await call(base, 'POST', '/admin/clock/advance', ADMIN_TOKEN, { seconds: toNextMonth })).status, 200);
    for (const account of early) {
      const documents = await call(base, 'GET', `/admin/accounts/${account.id}/documents`, ADMIN_TOKEN);
      assert.ok(documents.body.documents.length > 0, 'an invoice document was issued');
    }

    // Write load: four clients making accounts one after another until told to stop.
    const made: Made[] = [...early];
    let loading = true;
    const clients = Array.from({ length: 4 }, async () => {
      while (loading) made.push(await makeAccount(base));
    });
    // The backup starts once the load is under way, and the load goes on after it.
    while (made.length < early.length + 8) await makeAccount(base).then((account) => made.push(account));
    const backupBegan = performance.now();
    const backedUp = await runBackup({ DATA_DIR: dataDir }, file);
    const backupEnded = performance.now();
    assert.equal(backedUp.code, 0, backedUp.output);
    const madeBefore = made.length;
    while (made.length < madeBefore + 8) await makeAccount(base).then((account) => made.push(account));
    loading = false;
    await Promise.all(clients);

    const before = made.filter((account) => account.finished < backupBegan);
    const after = made.filter((account) => account.began > backupEnded);
    assert.ok(before.length >= 10 && after.length >= 8, `${before.length} before, ${after.length} after`);
    const views = new Map<number, Awaited<ReturnType<typeof accountView>>>();
    for (const account of before) views.set(account.id, await accountView(base, account.id, account.token));
    await original.stop();

    const copy = new DatabaseSync(file, { readOnly: true });
    assert.equal((copy.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check, 'ok');
    copy.close();

    // Restore: the copy as a fresh DATA_DIR's database, with the same server key.
    copyFileSync(file, join(restoredDir, 'nubis.db'));
    copyFileSync(join(dataDir, 'secret.key'), join(restoredDir, 'secret.key'));
    restored = await serve(restoredDir);
    for (const account of before) {
      const { ledgerBalance: balance, ...view } = await accountView(restored.url, account.id, account.token);
      const { ledgerBalance: expected, ...was } = views.get(account.id)!;
      assert.deepEqual(view, was, `account ${account.id}, finished before the backup`);
      assert.ok(Math.abs(balance - expected) <= 0.011, `account ${account.id}: balance ${balance}, was ${expected}`);
    }
    for (const account of after) {
      const shown = await call(restored.url, 'GET', `/admin/accounts/${account.id}`, ADMIN_TOKEN);
      assert.equal(shown.status, 404, `account ${account.id}, begun after the backup, is not in it`);
      assert.equal((await call(restored.url, 'GET', '/v1.3/account/info', account.token)).status, 401);
    }
    // Every account of the copy is whole: a server only with its account, a balance from its ledger.
    const accounts = await call(restored.url, 'GET', '/admin/accounts', ADMIN_TOKEN);
    assert.equal(accounts.status, 200);
    assert.ok(accounts.body.accounts.length >= before.length);
  } finally {
    await original?.stop();
    await restored?.stop();
    for (const dir of [dataDir, restoredDir]) rmSync(dir, { recursive: true, force: true });
    rmSync(join(file, '..'), { recursive: true, force: true });
  }
});

test('with DATABASE_URL, nubis backup refuses and points to the PostgreSQL way', async () => {
  const refused = await runBackup(
    { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test', DATA_DIR: tmpdir() },
    join(tmpdir(), 'never-written.db'),
  );
  assert.notEqual(refused.code, 0);
  assert.match(refused.output, /pg_dump/);
  assert.match(refused.output, /docs\/operating\.md/);
});
