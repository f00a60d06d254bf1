// The customer and operator commands against a real server: each command in table and JSON
// output, exit codes, --wait, login's stored context, and errors in one line. Most runs call the
// CLI in this process (runCli, the function bin/nubis.ts calls); a few spawn the real binary.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { cliCommands, exitCodes, runCli } from '@nubis/cli';
import { ADMIN_TOKEN, startTestInstance, type TestInstance } from './support/instance.ts';
import { createAccount, type TestAccount } from './support/accounts.ts';
import { ecdsaPublicKey } from './support/servers.ts';
import { finished } from './support/processes.ts';

const bin = new URL('../bin/nubis.ts', import.meta.url).pathname;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let nubis: TestInstance;
let account: TestAccount;
let configHome: string;

function sink(): { stream: Writable & { isTTY?: boolean }; text(): string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk;
      done();
    },
  });
  return { stream, text: () => text };
}

/** Runs `nubis <args>` in this process against the test server, as the account (and operator). */
async function cli(
  args: string[],
  env: Record<string, string | undefined> = {},
  options: { tty?: boolean } = {},
): Promise<Run> {
  const stdout = sink();
  const stderr = sink();
  if (options.tty) stderr.stream.isTTY = true;
  const code = await runCli(args, {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: {
      XDG_CONFIG_HOME: configHome,
      NUBIS_URL: nubis.url,
      NUBIS_TOKEN: account.token,
      ADMIN_TOKEN,
      ...env,
    },
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

async function ok(args: string[]): Promise<string> {
  const run = await cli(args);
  assert.equal(run.code, 0, `nubis ${args.join(' ')}: ${run.stderr}`);
  assert.equal(run.stderr, '', `nubis ${args.join(' ')} wrote to stderr`);
  return run.stdout;
}

// biome-ignore lint/suspicious/noExplicitAny: JSON read by assertions
async function json(args: string[]): Promise<any> {
  return JSON.parse(await ok(['-o', 'json', ...args]));
}

/** A port nothing listens on: one the system just gave and took back. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** A refusal: the exit code, and exactly one line on stderr, starting `nubis: `. */
async function refused(args: string[], code: number, env: Record<string, string | undefined> = {}): Promise<string> {
  const run = await cli(args, env);
  assert.equal(run.code, code, `nubis ${args.join(' ')}: ${run.stderr}`);
  assert.match(run.stderr, /^nubis: [^\n]+\n$/, `one line for nubis ${args.join(' ')}`);
  return run.stderr;
}

/** Runs a --wait command while the virtual clock moves on, as the simulated machines need. */
async function whileClockMoves<T>(work: Promise<T>): Promise<T> {
  let finished = false;
  const result = work.finally(() => {
    finished = true;
  });
  while (!finished) {
    await nubis.advance(30);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return result;
}

/** `nubis server create` of `hostname` in region 101 on image 1001 and plan 1, `more` after it. */
function serverCreate(hostname: string, ...more: string[]): string[] {
  return ['server', 'create', '--hostname', hostname, '--region', '101', '--image', '1001', '--plan', '1', ...more];
}

function tableHeader(text: string): string[] {
  return text
    .split('\n')[0]!
    .trim()
    .split(/\s{2,}/);
}

before(async () => {
  nubis = await startTestInstance();
  account = await createAccount(nubis);
  configHome = mkdtempSync(join(tmpdir(), 'nubis-cli-config-'));
});
after(async () => {
  await nubis.close();
  rmSync(configHome, { recursive: true, force: true });
});

describe('login and contexts', () => {
  test('login stores URL and token in $XDG_CONFIG_HOME/nubis, mode 0600; commands then need no environment', async () => {
    const run = await cli(['login', '--url', nubis.url, '--email', account.email, '--password', account.password], {
      NUBIS_URL: undefined,
      NUBIS_TOKEN: undefined,
      ADMIN_TOKEN: undefined,
    });
    assert.equal(run.code, 0, run.stderr);
    const file = join(configHome, 'nubis', 'config.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(stored.current, 'default');
    assert.equal(stored.contexts.default.url, nubis.url);
    assert.equal(stored.contexts.default.token, account.token);
    const bare = { NUBIS_URL: undefined, NUBIS_TOKEN: undefined, ADMIN_TOKEN: undefined };
    const info = await cli(['-o', 'json', 'account', 'info'], bare);
    assert.equal(info.code, 0, info.stderr);
    assert.equal(JSON.parse(info.stdout).email, account.email);
    // No operator token stored: admin commands say so.
    await refused(['admin', 'clock', 'show'], exitCodes.auth, bare);
    const contexts = await json(['context', 'list']);
    assert.deepEqual(contexts.contexts, [{ name: 'default', url: nubis.url, token: 'yes', operator: 'no' }]);
  });

  test('a wrong password, no context, an unreachable server and a second operator context', async () => {
    await refused(
      ['login', '--url', nubis.url, '--email', account.email, '--password', 'wrong password'],
      exitCodes.auth,
    );
    const empty = mkdtempSync(join(tmpdir(), 'nubis-cli-empty-'));
    try {
      await refused(['server', 'list'], exitCodes.auth, { XDG_CONFIG_HOME: empty, NUBIS_URL: undefined });
      // The line names the URL tried, so a wrong NUBIS_URL or context shows at once.
      const closed = await closedPort();
      const nobody = `http://127.0.0.1:${closed}`;
      assert.equal(
        await refused(['server', 'list'], exitCodes.unreachable, { NUBIS_URL: nobody }),
        `nubis: cannot reach ${nobody}: ECONNREFUSED\n`,
      );
      assert.equal(
        await refused(['login', '--url', nobody, '--token', 'x'.repeat(64)], exitCodes.unreachable),
        `nubis: cannot reach ${nobody}: ECONNREFUSED\n`,
      );
      const run = await cli(['login', '--url', nubis.url, '--admin-token', ADMIN_TOKEN, '--name', 'ops'], {
        XDG_CONFIG_HOME: empty,
      });
      assert.equal(run.code, 0, run.stderr);
      const stored = JSON.parse(readFileSync(join(empty, 'nubis', 'config.json'), 'utf8'));
      assert.deepEqual(stored.contexts.ops, { url: nubis.url, admin_token: ADMIN_TOKEN });
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('customer commands', () => {
  test('catalog listings: tables and JSON', async () => {
    for (const [name, key] of [
      ['region', 'regions'],
      ['image', 'images'],
      ['plan', 'plans'],
    ] as const) {
      const table = await ok([name, 'list']);
      assert.equal(tableHeader(table)[0], 'ID');
      const data = await json([name, 'list']);
      const ids = Object.keys(data[key]);
      assert.ok(ids.length > 0);
      for (const id of ids) assert.match(table, new RegExp(`^${id}\\s`, 'm'), `${name} ${id} in the table`);
    }
  });

  test('a server from create --wait to remove, through every action', async () => {
    const created = JSON.parse(
      await whileClockMoves(ok(['-o', 'json', ...serverCreate('cli-1.example.com', '--wait')])),
    );
    assert.equal(created.power, 'running');
    const id = String(created.id);
    const list = await ok(['server', 'list']);
    assert.deepEqual(tableHeader(list), ['ID', 'NAME', 'HOSTNAME', 'POWER', 'REGION', 'PLAN', 'IPV4']);
    assert.match(list, new RegExp(`^${id}\\s+cli-1\\.example\\.com\\s+cli-1\\.example\\.com\\s+running`, 'm'));
    const listed = await json(['server', 'list']);
    const api = await nubis.request('GET', '/v1.3/server/list', { token: account.token });
    assert.deepEqual(listed, api.body);
    assert.match(await ok(['server', 'info', created.uuid]), /^power\s+running$/m);
    // The usage graphs as a table, and as the API answers them.
    const usage = await ok(['server', 'metrics', id]);
    assert.deepEqual(tableHeader(usage), ['TIME', 'CPU %', 'MEMORY MB', 'DISK MB', 'IN B/S', 'OUT B/S']);
    assert.match(usage, /^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z\s+\d+\.\d\s+\d+/m);
    const month = await json(['server', 'metrics', id, '--period', 'month']);
    assert.equal(month.period, 'month');
    assert.equal(month.step, 3600);
    assert.deepEqual(tableHeader(await ok(['server', 'activity', id])), ['TIME', 'EVENT', 'WHAT', 'BY']);
    assert.match(await ok(['server', 'activity', id]), /server\.created\s+\S+\s+customer$/m);

    const stopped = await whileClockMoves(json(['server', 'stop', id, '--wait']));
    assert.equal(stopped.power, 'stopped');
    assert.match(await whileClockMoves(ok(['server', 'start', id, '--wait'])), /^server \d+ is running$/m);
    assert.equal((await whileClockMoves(json(['server', 'reboot', id, '--wait']))).power, 'running');
    assert.match(await ok(['server', 'rebuild', id, '--image', '1001']), /rebuild accepted/);
    assert.equal((await whileClockMoves(json(['server', 'resize', id, '--plan', '2', '--wait']))).info.plan_id, 2);
    assert.equal(
      (await whileClockMoves(json(['server', 'rescue', id, '--wait']))).info.features.includes('rescue_mode'),
      true,
    );
    await whileClockMoves(ok(['server', 'rescue', id, '--disable', '--wait']));

    // Snapshots and backups.
    const snapshot = await json(['snapshot', 'create', id, '--name', 'before-upgrade']);
    await nubis.advance(600);
    const snapshots = await ok(['snapshot', 'list']);
    assert.deepEqual(tableHeader(snapshots), ['ID', 'NAME', 'TYPE', 'STATUS', 'SERVER', 'SIZE_GB', 'CREATED']);
    assert.match(snapshots, /before-upgrade/);
    assert.ok(
      (await json(['snapshot', 'list'])).snapshots.some((entry: { uuid: string }) => entry.uuid === snapshot.uuid),
    );
    await whileClockMoves(ok(['snapshot', 'restore', snapshot.uuid, '--server', id, '--wait']));
    assert.match(await ok(['snapshot', 'remove', snapshot.uuid]), /removed/);
    assert.match(await ok(['backup', 'enable', id]), /backups enabled/);
    assert.deepEqual((await json(['backup', 'list'])).backups, []);
    assert.match(await ok(['backup', 'disable', id]), /backups disabled/);

    // Floating IPs and VPCs.
    const ip = await json(['floating-ip', 'create', '--region', '101']);
    assert.match(await ok(['floating-ip', 'attach', ip.uuid, id]), /attached/);
    const ips = await json(['floating-ip', 'list']);
    assert.equal(ips.floating_ips.find((entry: { uuid: string }) => entry.uuid === ip.uuid).server_id, created.id);
    assert.match(await ok(['floating-ip', 'list']), new RegExp(ip.ip_address.replace(/\./g, '\\.')));
    assert.match(await ok(['floating-ip', 'detach', ip.uuid, id]), /detached/);
    assert.match(await ok(['floating-ip', 'remove', ip.uuid]), /removed/);
    const vpc = await json(['vpc', 'create', '--region', '101', '--name', 'backend']);
    assert.match(await ok(['vpc', 'attach', vpc.uuid, id]), /attached/);
    assert.match(await ok(['vpc', 'list']), /backend/);
    assert.match(await ok(['vpc', 'detach', vpc.uuid, id]), /detached/);
    assert.match(await ok(['vpc', 'remove', vpc.uuid]), /removed/);

    // Remove, and it is gone: 404 is exit 4.
    assert.match(await ok(['server', 'remove', id, '--wait']), /removed/);
    await refused(['server', 'info', id], exitCodes.notFound);
  });

  test('SSH keys, tokens, invoices and the account', async () => {
    const key = await json(['ssh-key', 'create', '--name', 'laptop', '--public-key', ecdsaPublicKey()]);
    assert.match(await ok(['ssh-key', 'list']), /laptop/);
    assert.match(await ok(['ssh-key', 'rename', key.uuid, '--name', 'desktop']), /renamed/);
    assert.equal(
      (await json(['ssh-key', 'list'])).ssh_keys.find((entry: { uuid: string }) => entry.uuid === key.uuid).name,
      'desktop',
    );
    assert.match(await ok(['ssh-key', 'remove', key.uuid]), /removed/);

    const created = await ok(['token', 'create', '--name', 'ci']);
    assert.match(created, /^[0-9a-f]{64}\n$/);
    const tokens = await json(['token', 'list']);
    const ci = tokens.tokens.find((entry: { name: string }) => entry.name === 'ci');
    assert.ok(ci);
    assert.match(await ok(['token', 'rename', ci.uuid, '--name', 'ci-2']), /renamed/);
    assert.match(await ok(['token', 'list']), /ci-2/);
    assert.match(await ok(['token', 'remove', ci.uuid]), /removed/);

    const invoices = await ok(['invoice', 'list']);
    assert.deepEqual(tableHeader(invoices), ['TYPE', 'PER_HOUR', 'PER_MONTH', 'USAGE', 'ACTIVE', 'CREATED']);
    assert.ok(Array.isArray((await json(['invoice', 'list'])).invoices));
    const sum = await json(['invoice', 'sum']);
    assert.equal(typeof sum.server, 'number');
    assert.match(await ok(['invoice', 'sum']), /^server\s+/m);
    assert.match(await ok(['account', 'info']), new RegExp(`^email\\s+${account.email.replace(/\./g, '\\.')}$`, 'm'));
  });

  test('--wait shows a progress line only when stderr is a terminal, and clears it', async () => {
    const run = await whileClockMoves(cli(serverCreate('tty.example.com', '--wait'), {}, { tty: true }));
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /^\r[|/\\-] server \d+: provisioning \(\d+s\)/);
    assert.ok(run.stderr.endsWith('\r\u001b[K'));
    assert.match(run.stdout, /^power\s+running$/m);
  });

  test('exit codes: 402 is 6, 409 is 5, a --wait that runs out is 8', async () => {
    const poor = await createAccount(nubis, { credit: 0 });
    await refused(serverCreate('poor.example.com'), exitCodes.payment, { NUBIS_TOKEN: poor.token });
    const made = await json(serverCreate('busy.example.com'));
    await nubis.advance(600);
    // A floating IP that is attached to nothing cannot be detached: 409.
    const ip = await json(['floating-ip', 'create', '--region', '101']);
    await refused(['floating-ip', 'detach', ip.uuid, String(made.id)], exitCodes.conflict);
    await nubis.advance(600);
    await refused(['server', 'stop', String(made.id), '--wait', '--timeout', '1'], exitCodes.timeout);
  });
});

describe('usage', () => {
  test('--help on every command; bad options, missing arguments and unknown commands give one line and exit 2', async () => {
    const groups = [
      'server',
      'snapshot',
      'backup',
      'floating-ip',
      'vpc',
      'ssh-key',
      'token',
      'invoice',
      'payment',
      'region',
      'image',
      'plan',
      'context',
      'account',
    ];
    for (const group of [...groups, 'login', 'logout', 'admin']) {
      const run = await cli([group, '--help']);
      assert.equal(run.code, 0, group);
      assert.match(run.stdout, new RegExp(`^Usage: nubis ${group}`, 'm'), group);
    }
    for (const leaf of [
      ['server', 'create'],
      ['server', 'stop'],
      ['admin', 'servers', 'list'],
      ['admin', 'accounts', 'credit'],
      ['admin', 'clock', 'advance'],
    ]) {
      const run = await cli([...leaf, '--help']);
      assert.equal(run.code, 0);
      assert.match(run.stdout, new RegExp(`^Usage: nubis ${leaf.join(' ')}`, 'm'));
    }
    await refused(['server', 'list', '--colour'], exitCodes.usage);
    await refused(['server', 'create', '--hostname', 'x.example.com'], exitCodes.usage);
    await refused(['server', 'info'], exitCodes.usage);
    await refused(['server', 'fly'], exitCodes.usage);
    await refused(['server'], exitCodes.usage);
    await refused(['-o', 'yaml', 'server', 'list'], exitCodes.usage);
    await refused(['floating-ip', 'create', '--region', 'abc'], exitCodes.usage);
    // The API's own 400 (a bad host name) is 2 as well.
    await refused(serverCreate('not a host'), exitCodes.usage);
  });

  test('the real binary: npx nubis --help lists every command; exit codes and one-line errors reach the shell', async () => {
    const spawnNubis = async (args: string[]): Promise<Run> => {
      const child = spawn(process.execPath, [bin, ...args], {
        env: { ...process.env, XDG_CONFIG_HOME: configHome, NUBIS_URL: nubis.url, NUBIS_TOKEN: account.token },
      });
      const { code, stdout, stderr } = await finished(child, 'close');
      return { code: code as number, stdout, stderr };
    };
    const help = await spawnNubis(['--help']);
    assert.equal(help.code, 0);
    for (const command of [...cliCommands, 'serve', 'dev', 'migrate', 'sweep'])
      assert.match(help.stdout, new RegExp(`^  ${command}\\b`, 'm'), command);
    const bad = await spawnNubis(['server', 'list', '--bogus']);
    assert.equal(bad.code, exitCodes.usage);
    assert.equal(bad.stderr, "nubis: unknown option '--bogus'\n");
    const missing = await spawnNubis(['-o', 'json', 'server', 'info', '999999']);
    assert.equal(missing.code, exitCodes.notFound);
    assert.match(missing.stderr, /^nubis: 404 Not Found: [^\n]+\n$/);
    const listed = await spawnNubis(['-o', 'json', 'region', 'list']);
    assert.equal(listed.code, 0);
    assert.ok(JSON.parse(listed.stdout).regions);
  });
});

describe('payment commands', () => {
  test('a bank transfer announced by the customer and received by the operator; documents listed and saved', async () => {
    const options = await json(['payment', 'options']);
    assert.equal(options.card.available, false, 'no processor configured here');
    await refused(['payment', 'card', '10'], exitCodes.conflict);
    await refused(['payment', 'bank-transfer', '1'], exitCodes.usage);
    const transfer = await json(['payment', 'bank-transfer', '15']);
    const reference = transfer.instructions.reference;
    assert.match(reference, /^NUBIS-/);
    assert.match(await ok(['payment', 'bank-transfer', '16']), /^reference\s+NUBIS-/m);
    const awaited = await ok(['admin', 'transfers', 'list']);
    assert.deepEqual(tableHeader(awaited), ['ID', 'ACCOUNT', 'REFERENCE', 'AMOUNT', 'VAT%', 'CREATED']);
    assert.match(awaited, new RegExp(reference));
    const received = await json(['admin', 'transfers', 'received', transfer.transaction.id]);
    assert.deepEqual([received.pstatus, received.amount], ['completed', 15]);
    await refused(['admin', 'transfers', 'received', transfer.transaction.id], exitCodes.conflict);

    // The month turns: its document is listed and saved as a PDF.
    const now = Date.parse((await json(['admin', 'clock', 'show'])).now);
    const date = new Date(now);
    await nubis.advance(Math.ceil((Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1, 1) - now) / 1000));
    const { documents } = await json(['invoice', 'documents']);
    assert.equal(documents.length, 1);
    assert.deepEqual(tableHeader(await ok(['invoice', 'documents'])), [
      'ID',
      'NUMBER',
      'MONTH',
      'USAGE',
      'PAYMENTS',
      'VAT',
      'BALANCE',
    ]);
    const file = join(configHome, 'invoice.pdf');
    assert.match(await ok(['invoice', 'download', String(documents[0].id), '--file', file]), /^saved /);
    assert.equal(readFileSync(file).subarray(0, 5).toString(), '%PDF-');
    // With no --file: the name the console and the mail give it, invoice-<number>-<month>.pdf (issue 39).
    const cwd = process.cwd();
    process.chdir(configHome);
    try {
      const saved = await json(['invoice', 'download', String(documents[0].id)]);
      assert.equal(saved.file, `invoice-${String(documents[0].number).padStart(6, '0')}-${documents[0].period}.pdf`);
      assert.equal(readFileSync(join(configHome, saved.file)).subarray(0, 5).toString(), '%PDF-');
    } finally {
      process.chdir(cwd);
    }
    await refused(['invoice', 'download', '999999'], exitCodes.notFound);
  });
});

describe('operator commands', () => {
  test('accounts, outbox, clock, servers across accounts, audit and reset', async () => {
    const someone = await createAccount(nubis);
    const accounts = await ok(['admin', 'accounts', 'list']);
    assert.deepEqual(tableHeader(accounts), ['ID', 'EMAIL', 'ACTIVATED', 'BLOCKED', 'BALANCE', 'SERVERS']);
    assert.match(accounts, new RegExp(someone.email.replace(/\./g, '\\.')));
    const shown = await json(['admin', 'accounts', 'show', someone.email]);
    assert.equal(shown.id, someone.id);
    assert.match(await ok(['admin', 'accounts', 'show', String(someone.id)]), /^blocked\s+false$/m);
    const updated = await json([
      'admin',
      'accounts',
      'update',
      String(someone.id),
      '--servers-limit',
      '3',
      '--blocked',
      'true',
    ]);
    assert.deepEqual([updated.servers.limit, updated.blocked], [3, true]);
    await refused(['admin', 'accounts', 'update', String(someone.id)], exitCodes.usage);
    await refused(['admin', 'accounts', 'update', String(someone.id), '--blocked', 'maybe'], exitCodes.usage);
    const credit = await json(['admin', 'accounts', 'credit', someone.uuid, '12.5', '--note', 'goodwill']);
    assert.equal(credit.amount, 12.5);
    await refused(['admin', 'accounts', 'show', 'nobody@example.com'], exitCodes.notFound);

    assert.match(await ok(['admin', 'outbox', '--to', someone.email]), /Activate your Nubis account/);
    const clock = await json(['admin', 'clock', 'show']);
    assert.equal(clock.mode, 'virtual');
    const moved = await json(['admin', 'clock', 'advance', '60']);
    assert.ok(moved.now > clock.now);
    assert.match(await ok(['admin', 'clock', 'show']), /\(virtual\)$/m);

    const made = await json(serverCreate('ops.example.com'));
    await nubis.advance(600);
    const listed = await ok(['admin', 'servers', 'list', '--account', account.email]);
    assert.match(
      listed,
      new RegExp(`^${made.id}\\s+${account.email.replace(/\./g, '\\.')}\\s+ops\\.example\\.com\\s+running`, 'm'),
    );
    assert.equal(
      (await json(['admin', 'servers', 'list', '--power', 'running'])).servers.every(
        (s: { power: string }) => s.power === 'running',
      ),
      true,
    );
    assert.equal((await json(['admin', 'servers', 'stop', String(made.id)])).power, 'stopped');
    assert.match(await ok(['admin', 'servers', 'remove', String(made.id)]), /removed/);

    const audit = await json(['admin', 'audit', '--limit', '3']);
    assert.deepEqual(
      audit.entries.map((entry: { call: string }) => entry.call),
      ['DELETE /admin/servers/:server', 'POST /admin/servers/:server/stop', 'POST /admin/clock/advance'],
    );
    assert.match(await ok(['admin', 'audit', '--call', 'credit']), /POST \/admin\/accounts\/:account\/credit/);

    await refused(['admin', 'reset'], exitCodes.usage);
    assert.match(await ok(['admin', 'reset', '--yes']), /deleted/);
    assert.deepEqual((await json(['admin', 'accounts', 'list'])).accounts, []);
  });
});
