// The real-driver suite's harness: a catalog whose regions sit on ranges no host network uses
// (and only there: loopback and Nubis's own bridges are the only traffic targets), a Nubis on
// COMPUTE_DRIVER=lxd, the engine's own view for checks, and SSH from the host.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  type AddressInfo,
  createConnection,
  createServer,
  createServer as createTcpServer,
  type Server,
  type Socket,
} from 'node:net';
import { join } from 'node:path';
import { after } from 'node:test';
import { LxdClient } from '../../src/compute/lxd-engine.ts';
import { createAccount, type TestAccount } from '../support/accounts.ts';
import { startTestInstance, type JsonBody, type TestInstance } from '../support/instance.ts';

export const lxdUrl = process.env.LXD_URL ?? '/var/lib/lxd/unix.socket';
/** Region 101 of the test catalog: its own pool, bridge nubis-101 at 172.30.101.1/24. */
export const testPool = process.env.LXD_TEST_POOL ?? '172.30.101.0/24';
export const TEST_IMAGE = 1001;
/** Windows Server 2022 (no engine image of its own) and Docker (nesting) in region 101 of the test catalog. */
export const TEST_WINDOWS_IMAGE = 1101;
export const TEST_DOCKER_IMAGE = 2001;
/** Debian 12 in region 102 of the test catalog on nubis-cloud: configured by cloud-init alone (no Nubis unit). */
export const TEST_CLOUD_IMAGE = 1011;
/** Debian in region 101 of the test catalog on nubis-debian, the engine image a catalog's images use by default. */
export const TEST_DEBIAN_IMAGE = 1012;
/**
 * The suite's storage pool: btrfs on a loop file (made by `nubis compute setup`), so every root
 * disk has its plan's quota; apart from a host's own `nubis` pool, which may be `dir`.
 */
export const testStorage = {
  LXD_STORAGE_POOL: process.env.LXD_TEST_STORAGE_POOL ?? 'nubis-quota',
  LXD_STORAGE_DRIVER: 'btrfs',
  LXD_STORAGE_SIZE: process.env.LXD_TEST_STORAGE_SIZE ?? '20GiB',
};
/** A plan of the test catalog with a 1 GB disk, for what fills a disk (the hostile-tenant suite). */
export const TEST_SMALL_PLAN = 901;
export const TEST_SMALL_PLAN_DISK_GB = 1;
/**
 * Region 102 of the test catalog, for the addresses: a first IPv4 pool with one address (a /30),
 * a second pool (bridge nubis-102p2) and an IPv6 pool in ULA space (the host's own IPv6 is fd00::/64).
 */
export const addressRegion = {
  id: 102,
  pools: {
    v4: [process.env.LXD_TEST_POOL_SMALL ?? '172.30.102.0/30', process.env.LXD_TEST_POOL_SECOND ?? '172.30.103.0/24'],
    v6: process.env.LXD_TEST_POOL_V6 ?? 'fd4e:7562:6973::/48',
  },
};

/**
 * The catalog the real suite runs on: regions 101 (on `testPool`) and 102, image 1001 = nubis-tiny,
 * image 1011 = nubis-cloud (region 102).
 */
export function writeTestCatalog(): string {
  const catalog = JSON.parse(readFileSync(new URL('../../src/catalog/catalog.json', import.meta.url), 'utf8'));
  const region = catalog.regions.find((r: JsonBody) => r.id === 101);
  region.pools = { v4: [testPool], v6: null };
  region.features.ipv6 = false;
  region.ping_ip = '';
  const second = catalog.regions.find((r: JsonBody) => r.id === addressRegion.id);
  second.pools = addressRegion.pools;
  second.features.ipv6 = true;
  second.features.floating_ip = true;
  second.ping_ip = '';
  catalog.regions = [region, second];
  const image = catalog.images.find((i: JsonBody) => i.id === TEST_IMAGE);
  image.name = 'Nubis test image';
  image.min_disk_gb = 1;
  image.regions = [101, addressRegion.id];
  image.engine = { image: 'nubis-tiny' };
  // An OS the engine has no image of (it would boot Linux), and an application image needing nesting.
  const windows = catalog.images.find((i: JsonBody) => i.id === TEST_WINDOWS_IMAGE);
  windows.regions = [101];
  const docker = catalog.images.find((i: JsonBody) => i.id === TEST_DOCKER_IMAGE);
  Object.assign(docker, { min_disk_gb: 1, regions: [101], engine: { image: 'nubis-tiny', nesting: true } });
  const cloud = catalog.images.find((i: JsonBody) => i.id === TEST_CLOUD_IMAGE);
  Object.assign(cloud, { min_disk_gb: 2, regions: [addressRegion.id], engine: { image: 'nubis-cloud' } });
  const debian = catalog.images.find((i: JsonBody) => i.id === TEST_DEBIAN_IMAGE);
  Object.assign(debian, {
    name: 'Debian 12 (nubis-debian)',
    min_disk_gb: 2,
    regions: [101],
    engine: { image: 'nubis-debian' },
  });
  catalog.images = [image, windows, docker, cloud, debian];
  catalog.plans = catalog.plans.map((plan: JsonBody) => ({ ...plan, regions: [] }));
  catalog.plans.push({
    ...catalog.plans[0],
    id: TEST_SMALL_PLAN,
    uuid: 'c3b1b7b0-6c1a-4e39-8c7e-000000000901',
    name: 'test-1gb-disk',
    disk_gb: TEST_SMALL_PLAN_DISK_GB,
  });
  const path = join(mkdtempSync(join(tmpdir(), 'nubis-lxd-catalog-')), 'catalog.json');
  writeFileSync(path, JSON.stringify(catalog, null, 2));
  return path;
}

export function engine(url = lxdUrl): LxdClient {
  return new LxdClient({ url });
}

/** Removes the servers a suite made and waits (at most 60 s) until the engine has no instance of theirs. */
export async function removeServers(nubis: TestInstance, token: string, uuids: string[], lxd: LxdClient) {
  for (const uuid of uuids) await nubis.request('DELETE', `/v1.3/server/remove/${uuid}`, { token });
  await eventually('instances removed', 60, async () => {
    const names = await lxd.get<string[]>('/1.0/instances');
    return names.some((n) => uuids.some((uuid) => n.endsWith(uuid))) ? undefined : true;
  }).catch(() => {});
}

/**
 * Removes the snapshots and backups of the account `token` holds (they outlive its servers, and
 * each is an image in the engine) and waits (at most 60 s) until the engine has no image of theirs.
 */
export async function removeSnapshots(nubis: TestInstance, token: string, lxd: LxdClient) {
  const list = await nubis.request('GET', '/v1.3/snapshot/list', { token });
  const uuids: string[] = (list.body?.snapshots ?? []).map((snapshot: JsonBody) => snapshot.uuid);
  for (const uuid of uuids) await nubis.request('DELETE', `/v1.3/snapshot/remove/${uuid}`, { token });
  await eventually('snapshot images removed', 60, async () => {
    for (const uuid of uuids) if (await lxd.exists(`/1.0/images/aliases/nubis-snap-${uuid}`)) return undefined;
    return true;
  }).catch(() => {});
}

export function startLxdInstance(env: Record<string, string> = {}): Promise<TestInstance> {
  return startTestInstance({
    COMPUTE_DRIVER: 'lxd',
    LXD_URL: lxdUrl,
    ...testStorage,
    CATALOG_FILE: process.env.LXD_TEST_CATALOG ?? writeTestCatalog(),
    COMPUTE_RECONCILE_SECONDS: '1',
    COMPUTE_USAGE_SECONDS: '1',
    COMPUTE_JOB_CONCURRENCY: '4',
    CLOCK: 'system',
    // The suite pauses between calls while machines boot and SSH runs: an idle connection the
    // server closes just as the test's fetch reuses it would fail a POST (ECONNRESET).
    KEEP_ALIVE_TIMEOUT_MS: '600000',
    ...env,
  });
}

/** What every real-driver suite starts with: see `lxdSuite`. */
export interface LxdSuite {
  /** Nubis on COMPUTE_DRIVER=lxd. */
  nubis: TestInstance;
  /** The account the suite's servers belong to. */
  alice: TestAccount;
  /** The engine's own view, for checks. */
  lxd: LxdClient;
  /** A key pair whose public key `addKey` registers, for SSH from the host. */
  key: { path: string; publicKey: string };
  /** Uuids of alice's servers, removed (and their instances waited out) after the suite. */
  created: string[];
  /** Registers the suite's public key for `account` (alice unless given): the key's uuid. */
  addKey(account?: TestAccount): Promise<string>;
  /**
   * Creates a server for `account` (alice unless given) in region 101 (the test catalogs' region
   * on the engine) on the test image and plan 1 unless `body` says otherwise, and remembers it for
   * removal: the create answer's body.
   */
  createServer(body: Record<string, unknown>, account?: TestAccount): Promise<JsonBody>;
  /** Asks for `command` (`start`, `stop`, `reboot`…) on alice's server `uuid`: accepted, 202. */
  power(uuid: string, command: string): Promise<void>;
}

/** What a suite asks of its set-up: see `lxdSuite`. */
export interface SuiteOptions {
  /** Over the suite's Nubis environment. */
  env?: Record<string, string>;
  /** Alice's credit (default 100). */
  credit?: number;
  /** What the suite made besides its servers and snapshots (engine networks, listeners), undone after them. */
  cleanUp?: () => Promise<void> | void;
}

/**
 * Starts a suite's Nubis (`env` over `startLxdInstance`'s) and its account (`credit`, default
 * 100), at the file's top level (`const { nubis, alice } = await lxdSuite()`), so the tests read
 * plain names. After the file's tests: every server it created is removed and waited out, so are
 * its accounts' snapshots and backups, `cleanUp` runs (what the suite made besides: engine networks,
 * listeners), Nubis and the engine client close. Set-up that makes anything on the engine belongs in a `before` hook:
 * a failure at the top level ends the file before any `after` hook runs.
 */
export function lxdSuite(options: SuiteOptions = {}): Promise<LxdSuite> {
  return engineSuite(engine(), startLxdInstance, options);
}

/**
 * `lxdSuite` on any engine: `lxd` is the engine's own view (closed after the suite), `start` starts
 * a Nubis on it with `env` over its own. The cluster suite's `clusterSuite` is this on the cluster.
 */
export async function engineSuite(
  lxd: LxdClient,
  start: (env?: Record<string, string>) => Promise<TestInstance>,
  options: SuiteOptions,
): Promise<LxdSuite> {
  const nubis = await start(options.env);
  const alice = await createAccount(nubis, options.credit === undefined ? {} : { credit: options.credit });
  const key = keyPair();
  const created: string[] = [];
  /** Servers of accounts other than alice's, removed with their owner's token. */
  const others: { token: string; uuid: string }[] = [];
  after(async () => {
    await removeServers(nubis, alice.token, created, lxd);
    for (const { token, uuid } of others) await removeServers(nubis, token, [uuid], lxd);
    for (const token of new Set([alice.token, ...others.map((other) => other.token)]))
      await removeSnapshots(nubis, token, lxd).catch(() => {});
    await options.cleanUp?.();
    await nubis.close();
    lxd.close();
  });
  return {
    nubis,
    alice,
    lxd,
    key,
    created,
    async addKey(account = alice) {
      const added = await nubis.request('POST', '/v1.3/ssh_key/create', {
        token: account.token,
        body: { name: 'laptop', public_key: key.publicKey },
      });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      return added.body.uuid;
    },
    async createServer(body, account = alice) {
      const made = await nubis.request('POST', '/v1.3/server/create', {
        token: account.token,
        body: { region: 101, image: TEST_IMAGE, plan: 1, ...body },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      if (account === alice) created.push(made.body.uuid);
      else others.push({ token: account.token, uuid: made.body.uuid });
      return made.body;
    },
    async power(uuid, command) {
      const answer = await nubis.request('PATCH', `/v1.3/server/${command}`, {
        token: alice.token,
        body: { server_id: uuid },
      });
      assert.equal(answer.status, 202, JSON.stringify(answer.body));
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a value (not undefined), at most `seconds`. */
export async function eventually<T>(what: string, seconds: number, probe: () => Promise<T | undefined>): Promise<T> {
  const until = Date.now() + seconds * 1000;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > until)
      throw new Error(`${what}: not within ${seconds} s${last ? ` (${(last as Error).message})` : ''}`);
    await sleep(500);
  }
}

export async function serverInfo(nubis: TestInstance, token: string, id: string | number): Promise<JsonBody> {
  const info = await nubis.request('GET', `/v1.3/server/info/${id}`, { token });
  assert.equal(info.status, 200, JSON.stringify(info.body));
  return info.body.server ?? info.body;
}

export function awaitPower(nubis: TestInstance, token: string, id: string | number, power: string, seconds = 120) {
  return eventually(`server ${id} ${power}`, seconds, async () => {
    const info = await serverInfo(nubis, token, id);
    return info.power === power ? info : undefined;
  });
}

/**
 * Creates a server for a new account on a Nubis whose engine will refuse it, and waits until its
 * provisioning has given up: its owner and uuid. It shows `unknown` once reconciliation found the
 * engine unreachable (EngineReachable false), else `stopped` (nothing was made).
 */
export async function createRefused(nubis: TestInstance, hostname: string, seconds = 60) {
  const owner = await createAccount(nubis);
  const created = await nubis.request('POST', '/v1.3/server/create', {
    token: owner.token,
    body: { hostname, label: hostname.split('.')[0], region: 101, image: TEST_IMAGE, plan: 1 },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const settled = await eventually(`server ${created.body.uuid} given up`, seconds, async () => {
    const info = await serverInfo(nubis, owner.token, created.body.uuid);
    return info.power === 'unknown' || info.power === 'stopped' ? info : undefined;
  });
  return { owner, uuid: created.body.uuid as string, settled };
}

export function publicAddress(info: JsonBody): string {
  const entry = info.iface?.v4?.find((i: JsonBody) => i.type === 'public');
  assert.ok(entry, `server has a public address: ${JSON.stringify(info.iface)}`);
  return entry.address;
}

export function privateAddress(info: JsonBody): string {
  const entry = info.iface?.v4?.find((i: JsonBody) => i.type === 'private');
  assert.ok(entry, `server has a private address: ${JSON.stringify(info.iface)}`);
  return entry.address;
}

/** A fresh ed25519 key pair (Debian's openssh-client): the private key's path and the public line. */
export function keyPair(): { path: string; publicKey: string } {
  const path = join(mkdtempSync(join(tmpdir(), 'nubis-lxd-key-')), 'id_ed25519');
  const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'nubis-test', '-f', path]);
  assert.equal(made.status, 0, String(made.stderr));
  return { path, publicKey: readFileSync(`${path}.pub`, 'utf8').trim() };
}

export type SshAuth = { key: string } | { password: string };

/** Runs a command over SSH as root (openssh-client; sshpass for a password); `input` is its stdin. */
export function ssh(
  address: string,
  auth: SshAuth,
  command: string,
  input?: Buffer,
): { code: number; stdout: string; stderr: string } {
  const common = [
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'UserKnownHostsFile=/dev/null',
    '-o',
    'ConnectTimeout=3',
    '-o',
    'LogLevel=ERROR',
  ];
  const result =
    'key' in auth
      ? spawnSync(
          'ssh',
          [
            ...common,
            '-o',
            'BatchMode=yes',
            '-o',
            'PreferredAuthentications=publickey',
            '-i',
            auth.key,
            `root@${address}`,
            command,
          ],
          { encoding: 'utf8', timeout: 20_000, input },
        )
      : spawnSync(
          'sshpass',
          [
            '-p',
            auth.password,
            'ssh',
            ...common,
            '-o',
            'PreferredAuthentications=password',
            '-o',
            'PubkeyAuthentication=no',
            `root@${address}`,
            command,
          ],
          { encoding: 'utf8', timeout: 20_000, input },
        );
  return { code: result.status ?? -1, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
}

/** SSH until it answers (the machine may still be starting its SSH server), then the command's result. */
export function sshEventually(address: string, auth: SshAuth, command: string, seconds = 60) {
  return eventually(`ssh root@${address} ${command}`, seconds, async () => {
    const result = ssh(address, auth, command);
    return result.code === 0 ? result : undefined;
  });
}

/**
 * The guest sends `mib` MiB to a sink on the host's address on its bridge (what a server sends is
 * what the meter counts), through the engine's exec: this process stays free to read them.
 */
export async function sendFromGuest(lxd: LxdClient, serverUuid: string, mib: number): Promise<void> {
  const gateway = testPool.replace(/\.0\/\d+$/, '.1');
  const sink = createTcpServer((socket) => socket.resume());
  await new Promise<void>((resolve) => sink.listen(0, gateway, resolve));
  try {
    const { port } = sink.address() as AddressInfo;
    const sent = await lxd.exec(`nubis-${serverUuid}`, [
      '/bin/sh',
      '-c',
      `dd if=/dev/zero bs=1M count=${mib} 2>/dev/null | nc -w 3 ${gateway} ${port}; echo sent`,
    ]);
    assert.equal(sent.stdout.trim(), 'sent', sent.stderr);
  } finally {
    sink.close();
  }
}

/** A unix socket in front of the engine's that refuses every connection until `open`. */
export class EngineGate {
  readonly path = join(mkdtempSync(join(tmpdir(), 'nubis-gate-')), 'lxd.socket');
  open = false;
  refused = 0;
  /** The request line of each request passed to the engine (`POST /1.0/instances`), in order. */
  readonly requests: string[] = [];
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #watch: { request: RegExp; accepted: () => void } | null = null;
  #hold: { request: RegExp; first: () => Promise<void> } | null = null;
  constructor(target: string) {
    this.#server = createServer((client) => {
      this.#sockets.add(client);
      client.on('close', () => this.#sockets.delete(client));
      if (!this.open) {
        this.refused++;
        client.destroy();
        return;
      }
      const upstream = createConnection(target);
      let armed = false;
      client.on('data', (chunk: Buffer) => {
        const text = chunk.toString('latin1');
        const line = /^([A-Z]+ \S+) HTTP\//.exec(text);
        if (line) this.requests.push(line[1]!);
        if (this.#watch && this.#watch.request.test(text)) armed = true;
        const held = this.#hold;
        if (!held || !held.request.test(text)) {
          upstream.write(chunk);
          return;
        }
        // What happens before the engine sees this request happens first; then it is sent on.
        this.#hold = null;
        client.pause();
        void held.first().finally(() => {
          upstream.write(chunk);
          client.resume();
        });
      });
      upstream.on('data', (chunk: Buffer) => {
        // The engine accepted it as a background operation: the work is under way.
        if (!armed || !this.#watch || !chunk.toString('latin1').startsWith('HTTP/1.1 202')) return;
        armed = false;
        const { accepted } = this.#watch;
        this.#watch = null;
        accepted();
      });
      upstream.pipe(client);
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      client.on('error', () => upstream.destroy());
    });
  }
  /**
   * Resolves once a request matching `request` (its request line, say `POST /1.0/images `) passed
   * through and the engine accepted it as an operation (202): the engine is doing that work now.
   */
  accepted(request: RegExp): Promise<void> {
    return new Promise((resolve) => {
      this.#watch = { request, accepted: resolve };
    });
  }
  /** Holds the next request matching `request` until `first` has run (a crash of the engine, say). */
  before(request: RegExp, first: () => Promise<void>): void {
    this.#hold = { request, first };
  }
  /** Shuts the gate and cuts the connections through it (a client's kept-alive ones too). */
  cut(): void {
    this.open = false;
    for (const socket of this.#sockets) socket.destroy();
  }
  listen(): Promise<void> {
    return new Promise((resolve) => this.#server.listen(this.path, resolve));
  }
  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

/**
 * A Debian server's first boot ended cleanly: cloud-init's last stage is over with no module in
 * error (`--wait`, `--long` names a failed one), sshd still offers the host key it offered at the
 * first login (`firstKey`), and it started once in the boot: a restart mid-boot (set-passwords
 * finding its setting missing) refuses logins for a moment.
 */
export async function assertCleanFirstBoot(lxd: LxdClient, uuid: string, address: string, firstKey: string) {
  const status = await lxd.exec(`nubis-${uuid}`, ['cloud-init', 'status', '--wait', '--long']);
  assert.match(status.stdout, /^status: done$/m, `${status.stdout}${status.stderr}`);
  assert.equal(hostKey(address), firstKey, 'sshd still offers the host key of the first login');
  const sshd = await lxd.exec(`nubis-${uuid}`, ['journalctl', '--boot', '--unit', 'ssh.service', '--output', 'cat']);
  const starts = sshd.stdout.split('\n').filter((line) => line.startsWith('Server listening on 0.0.0.0 port 22'));
  assert.equal(starts.length, 1, `sshd started once in the boot, nothing restarted it:\n${sshd.stdout}`);
}

/** The ed25519 host key sshd offers on `address`. */
export function hostKey(address: string): string {
  const scan = spawnSync('ssh-keyscan', ['-T', '5', '-t', 'ed25519', address], { encoding: 'utf8' });
  const found = scan.stdout.split(' ').slice(1).join(' ').trim();
  assert.match(found, /^ssh-ed25519 /, `${scan.stdout}${scan.stderr}`);
  return found;
}

/** An account with money to spare and an SSH key registered, for a bench's servers: the key pair and its uuid. */
export async function keyedAccount(
  nubis: TestInstance,
  credit = 5000,
): Promise<{ account: TestAccount; key: { path: string; publicKey: string }; keyId: string }> {
  const account = await createAccount(nubis, { credit });
  const key = keyPair();
  const added = await nubis.request('POST', '/v1.3/ssh_key/create', {
    token: account.token,
    body: { name: 'bench', public_key: key.publicKey },
  });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  return { account, key, keyId: added.body.uuid };
}
