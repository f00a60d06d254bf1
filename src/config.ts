// Configuration: every environment variable Nubis reads, its default and its parser.
// One table so docs/configuration.md, `nubis help config` and start-up validation never drift apart.

import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * The JSON of the file a setting names (CATALOG_FILE, BILLING_FILE), or of the shipped file when it
 * names none, and `source`, which says which in every error about it.
 */
export function readSettingsFile(
  setting: { name: string; file: string | null; shipped: { what: string; file: string } },
  fail: new (message: string) => ConfigError = ConfigError,
): { raw: unknown; source: string } {
  const { name, file, shipped } = setting;
  const source = file ? `${name} ${file}` : `shipped ${shipped.what} ${shipped.file}`;
  try {
    return { raw: JSON.parse(readFileSync(file ?? shipped.file, 'utf8')), source };
  } catch (error) {
    throw new fail(`${source} cannot be read as JSON: ${(error as Error).message}`);
  }
}

type Parser<T> = (raw: string, name: string) => T;

const integer =
  (min: number, max: number): Parser<number> =>
  (raw, name) => {
    if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
    const value = Number(raw);
    if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
    return value;
  };

const oneOf =
  <T extends string>(...values: T[]): Parser<T> =>
  (raw, name) => {
    if (!(values as string[]).includes(raw))
      throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
    return raw as T;
  };

/** Names of query parameters that carry a credential (`?password=` in a PostgreSQL URL, say). */
const credentialParameter = /pass|secret|token|key|auth/i;

/**
 * A URL as it may be printed (in an error or a log line): its password, and any query parameter
 * named like a credential, as `***`. Text that does not parse as a URL loses everything between
 * its user and its last `@` the same way.
 */
export function redactUrl(raw: string): string {
  try {
    const parsed = new URL(raw);
    if (parsed.password) parsed.password = '***';
    for (const name of [...parsed.searchParams.keys()])
      if (credentialParameter.test(name)) parsed.searchParams.set(name, '***');
    if (parsed.password || parsed.search) return parsed.toString();
  } catch {
    // Not a URL: redacted by hand below.
  }
  const at = raw.lastIndexOf('@');
  if (at < 0) return raw;
  const scheme = raw.indexOf('://');
  const userStart = scheme >= 0 && scheme < at ? scheme + 3 : 0;
  const colon = raw.indexOf(':', userStart);
  if (colon < 0 || colon > at) return raw;
  return `${raw.slice(0, colon)}:***${raw.slice(at)}`;
}

const url =
  (...protocols: string[]): Parser<string> =>
  (raw, name) => {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(`${name} must be a URL (${protocols.join(' or ')}), got "${redactUrl(raw)}"`);
    }
    if (!protocols.includes(parsed.protocol))
      throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
    return raw;
  };

/**
 * A URL that, when it names a user, names the password too: half a login would fail only at the
 * first mail or command, long after the start.
 */
const withPassword =
  (parse: Parser<string>): Parser<string> =>
  (raw, name) => {
    const value = parse(raw, name);
    const parsed = new URL(value);
    if (parsed.username && !parsed.password)
      throw new ConfigError(
        `${name} names the user "${decodeURIComponent(parsed.username)}" but no password: write ${parsed.protocol}//user:password@host`,
      );
    return value;
  };

const text: Parser<string> = (raw) => raw;

const boolean: Parser<boolean> = (raw, name) => {
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
};

/** A rate as the engine writes NIC limits: a number and a bit unit (`10Mbit`, `500kbit`, `1Gbit`). */
const bitRate: Parser<string> = (raw, name) => {
  const value = raw.trim();
  if (!/^[1-9]\d{0,6}(bit|kbit|Mbit|Gbit)$/.test(value))
    throw new ConfigError(`${name} must be a rate such as 10Mbit (bit, kbit, Mbit or Gbit), got "${raw}"`);
  return value;
};

const portList: Parser<number[]> = (raw, name) => {
  if (raw.trim() === '') return [];
  return raw.split(',').map((part) => integer(1, 65535)(part.trim(), name));
};

const secret =
  (minLength: number): Parser<string> =>
  (raw, name) => {
    if (raw.length < minLength) throw new ConfigError(`${name} must be at least ${minLength} characters`);
    return raw;
  };

/** TRUST_PROXY: the addresses/CIDRs of the proxies (false: none). */
export type TrustProxy = false | string[];

/**
 * Only listed proxies are believed. `true` or a hop count would believe whatever X-Forwarded-For
 * a direct client sends (choosing its own rate-limit key) and lift the per-address connection
 * cap for every peer, so they stop the start instead of meaning something unsafe.
 */
const trustProxyValue: Parser<TrustProxy> = (raw, name) => {
  if (/^(false)?$/i.test(raw.trim())) return false;
  if (/^(true|\d+)$/i.test(raw.trim()))
    throw new ConfigError(
      `${name}=${raw} would believe X-Forwarded-For from any client: list the proxies' addresses or CIDRs instead (e.g. ${name}=10.0.0.5 or ${name}=10.0.0.0/8,::1)`,
    );
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const version = isIP(address ?? '');
    const maxBits = version === 6 ? 128 : 32;
    if (!version || (bits !== undefined && (!/^\d+$/.test(bits) || Number(bits) > maxBits))) {
      throw new ConfigError(`${name} must be false or the proxies' comma-separated addresses or CIDRs, got "${entry}"`);
    }
  }
  return entries;
};

interface Variable<T> {
  env: string;
  default: T;
  parse: Parser<T>;
  doc: string;
}

const v = <T>(env: string, def: T, parse: Parser<T>, doc: string): Variable<T> => ({ env, default: def, parse, doc });

/** Every variable, in the order docs/configuration.md lists them. */
export const variables = {
  mode: v(
    'NUBIS_MODE',
    'server' as 'server' | 'emulator',
    oneOf('server', 'emulator'),
    '`server`, or `emulator` (what `nubis dev` sets): virtual clock, accounts activated at registration, relaxed rate limits, simulated transitions of seconds (provisioning 3 s, boot 2 s, stop 1 s, reboot 2 s, rebuild 3 s, resize 2 s, snapshots 1 s per GB), ADMIN_TOKEN `nubis-emulator-admin-token` and a seeded account whose token is printed at start; a variable set explicitly still wins',
  ),
  seed: v<string | null>(
    'NUBIS_SEED',
    null,
    text,
    'emulator only (refused otherwise): every made-up value (uuids, tokens, passwords, addresses, the server key, request ids) follows from this seed and the order of requests, and the virtual clock starts at midnight of a day of 2030 the seed picks and stands still until advanced; the instance starts empty (and a reset starts it over); nothing it makes is secret',
  ),
  port: v('PORT', 8080, integer(0, 65535), 'TCP port the HTTP server listens on'),
  host: v('HOST', '127.0.0.1', text, 'address the HTTP server binds to'),
  dataDir: v(
    'DATA_DIR',
    './data',
    text,
    'holds the SQLite file (`nubis.db`) and the generated server key (`secret.key`); `:memory:` keeps the database (and a generated key) in memory, writing nothing (the default with NUBIS_SEED)',
  ),
  databaseUrl: v<string | null>(
    'DATABASE_URL',
    null,
    url('postgres:', 'postgresql:'),
    'postgres://… switches storage from SQLite to PostgreSQL',
  ),
  redisUrl: v<string | null>(
    'REDIS_URL',
    null,
    withPassword(url('redis:', 'rediss:')),
    'redis://… shares rate-limit counters between instances',
  ),
  redisPrefix: v(
    'REDIS_PREFIX',
    'nubis:',
    text,
    'prefix of every Redis key, so several deployments can share one Redis',
  ),
  smtpUrl: v<string | null>(
    'SMTP_URL',
    null,
    withPassword(url('smtp:', 'smtps:')),
    'smtp://user:pass@host:port: deliver mail over SMTP as well as to the outbox',
  ),
  mailFrom: v('MAIL_FROM', 'Nubis <no-reply@nubis.localhost>', text, 'sender of every mail'),
  pdnsApiUrl: v<string | null>(
    'PDNS_API_URL',
    null,
    url('http:', 'https:'),
    "http://host:port of a PowerDNS Authoritative HTTP API (its webserver): publish every address's reverse DNS (PTR) there, through a retried outbox; needs PDNS_API_KEY (docs/reverse-dns.md)",
  ),
  pdnsApiKey: v<string | null>('PDNS_API_KEY', null, secret(8), 'the `api-key` of that PowerDNS (sent as X-API-Key)'),
  pdnsServerId: v('PDNS_SERVER_ID', 'localhost', text, 'the PowerDNS server id in its API paths'),
  publicUrl: v<string | null>(
    'PUBLIC_URL',
    null,
    url('http:', 'https:'),
    'the address people reach this server at, for the console links in mail (activation); default http://localhost:PORT',
  ),
  adminToken: v<string | null>(
    'ADMIN_TOKEN',
    null,
    secret(16),
    'enables the operator API under /admin (Bearer token, 16+ characters); unset, `nubis serve` uses the token in DATA_DIR/admin-token, which its first start on an empty database makes (0600) and names',
  ),
  adminName: v<string | null>(
    'ADMIN_NAME',
    null,
    text,
    'who the operator audit log (GET /admin/audit) names for calls with ADMIN_TOKEN; default: `token:` and 12 hex digits of its SHA-256',
  ),
  metricsToken: v<string | null>(
    'METRICS_TOKEN',
    null,
    secret(16),
    'enables GET /metrics (Prometheus text format) on the API port for `Authorization: Bearer <METRICS_TOKEN>` (16+ characters)',
  ),
  metricsPort: v<number | null>(
    'METRICS_PORT',
    null,
    integer(0, 65535),
    'serves GET /metrics on its own listener at METRICS_HOST:METRICS_PORT instead (no token asked unless METRICS_TOKEN is set)',
  ),
  metricsHost: v('METRICS_HOST', '127.0.0.1', text, 'address the METRICS_PORT listener binds to'),
  secretKey: v<string | null>(
    'SECRET_KEY',
    null,
    secret(32),
    'server key (32+ characters) that hashes tokens and encrypts stored secrets; default: generated into DATA_DIR/secret.key. Several instances must share one',
  ),
  secretKeyFile: v<string | null>(
    'SECRET_KEY_FILE',
    null,
    text,
    'file holding the server key when SECRET_KEY is not set (created 0600 on first start); default DATA_DIR/secret.key. Keep it apart from DATA_DIR, so a copy of the data is not a copy of the key',
  ),
  clock: v(
    'CLOCK',
    'system' as 'system' | 'virtual',
    oneOf('system', 'virtual'),
    '`system`, or `virtual` to let POST /admin/clock/advance move time',
  ),
  logLevel: v(
    'LOG_LEVEL',
    'info',
    oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
    'pino log level',
  ),
  catalogFile: v<string | null>(
    'CATALOG_FILE',
    null,
    text,
    'JSON file of regions, images and plans replacing the shipped `catalog/catalog.json`',
  ),
  serversLimit: v('SERVERS_LIMIT', 10, integer(0, 1_000_000), 'servers.limit of a new account'),
  floatingIpsLimit: v(
    'FLOATING_IPS_LIMIT',
    20,
    integer(0, 1_000_000),
    "floating IPs (the legacy API's reserved IPs) an account may hold at once",
  ),
  blockedPortsTcp: v(
    'BLOCKED_PORTS_TCP',
    [25, 465, 587],
    portList,
    "the deployment's default blocked TCP ports (comma-separated): shown in account info and dropped at the engine for every account without its own list",
  ),
  blockedPortsUdp: v(
    'BLOCKED_PORTS_UDP',
    [] as number[],
    portList,
    "the deployment's default blocked UDP ports (comma-separated), as BLOCKED_PORTS_TCP",
  ),
  throttleRate: v(
    'BANDWIDTH_THROTTLE_RATE',
    '10Mbit',
    bitRate,
    "rate each way of a server's public NIC once its bandwidth policy `throttle` applies (LXD `limits.egress`/`limits.ingress`)",
  ),
  autoActivate: v('AUTO_ACTIVATE', false, boolean, 'activate new accounts at registration (emulator convenience)'),
  passwordHashCost: v('PASSWORD_HASH_COST', 15, integer(10, 20), 'scrypt cost as log2(N); 15 = 32 MiB per hash'),
  passwordHashConcurrency: v(
    'PASSWORD_HASH_CONCURRENCY',
    16,
    integer(1, 10_000),
    'password hashes (scrypt) under way at once in this process, queued ones included; beyond it login, register, reset and password changes answer 503 with Retry-After',
  ),
  tempPasswordTtlSeconds: v(
    'TEMP_PASSWORD_TTL',
    3600,
    integer(60, 30 * 86400),
    'seconds a temporary password from account/reset works',
  ),
  rateRegisterPerMinute: v(
    'RATE_REGISTER_PER_MINUTE',
    20,
    integer(1, 1_000_000),
    'registrations a minute per client address',
  ),
  rateLoginPerMinute: v(
    'RATE_LOGIN_PER_MINUTE',
    10,
    integer(1, 1_000_000),
    'login attempts a minute per client address and e-mail',
  ),
  rateLoginPerAddressPerMinute: v(
    'RATE_LOGIN_PER_ADDRESS_PER_MINUTE',
    30,
    integer(1, 1_000_000),
    'login attempts a minute per client address, whatever the e-mail',
  ),
  rateActivatePerMinute: v(
    'RATE_ACTIVATE_PER_MINUTE',
    20,
    integer(1, 1_000_000),
    'activation attempts a minute per client address',
  ),
  rateResetPerMinute: v(
    'RATE_RESET_PER_MINUTE',
    10,
    integer(1, 1_000_000),
    'password resets a minute per client address',
  ),
  rateAccountInfoPerMinute: v(
    'RATE_ACCOUNT_INFO_PER_MINUTE',
    60,
    integer(1, 100_000_000),
    'account/info calls a minute per token',
  ),
  rateAccountUpdatePerMinute: v(
    'RATE_ACCOUNT_UPDATE_PER_MINUTE',
    20,
    integer(1, 1_000_000),
    'account/update calls a minute per token',
  ),
  ratePerTokenPerSecond: v(
    'RATE_TOKEN_PER_SECOND',
    100,
    integer(1, 100_000_000),
    'requests a second per token, over every authenticated operation',
  ),
  dbPoolSize: v('DB_POOL_SIZE', 10, integer(1, 1000), 'PostgreSQL connection pool size'),
  dbStatementTimeoutMs: v(
    'DB_STATEMENT_TIMEOUT_MS',
    10_000,
    integer(0, 3_600_000),
    'PostgreSQL statement_timeout (0 = none)',
  ),
  dbConnectRetries: v(
    'DB_CONNECT_RETRIES',
    10,
    integer(0, 1000),
    'connection attempts at start-up before giving up (one a second)',
  ),
  sweeps: v('SWEEPS', true, boolean, 'run the periodic sweeps (backups, funds, mail retries) in this process'),
  sweepIntervalSeconds: v('SWEEP_INTERVAL_SECONDS', 30, integer(1, 86400), 'seconds between two sweep rounds'),
  trustProxy: v<TrustProxy>(
    'TRUST_PROXY',
    false,
    trustProxyValue,
    "behind a reverse proxy: the proxies' comma-separated addresses/CIDRs. Only a request whose peer is listed has its X-Forwarded-For believed (the client address for rate limits and the activity log), and only a listed peer escapes MAX_CONNECTIONS_PER_ADDRESS; `true` and hop counts are refused",
  ),
  headersTimeoutMs: v(
    'HEADERS_TIMEOUT_MS',
    10_000,
    integer(1_000, 600_000),
    'ms a connection may take to send a request line and headers (a silent connection is closed with 408)',
  ),
  requestTimeoutMs: v(
    'REQUEST_TIMEOUT_MS',
    30_000,
    integer(1_000, 3_600_000),
    'ms a whole request, headers and body, may take to arrive (a trickled body is cut with 408)',
  ),
  keepAliveTimeoutMs: v(
    'KEEP_ALIVE_TIMEOUT_MS',
    5_000,
    integer(100, 600_000),
    'ms an idle keep-alive connection is kept open between requests',
  ),
  maxJsonDepth: v(
    'MAX_JSON_DEPTH',
    32,
    integer(2, 1_000),
    'objects and arrays a JSON body may nest inside each other; a deeper body is refused (400 naming `body`) before it is parsed',
  ),
  maxConnections: v(
    'MAX_CONNECTIONS',
    1_000,
    integer(1, 1_000_000),
    'open connections at most; more are closed at once (keep twice it under the descriptor limit, `ulimit -n`: a connection refused for its address is open for an instant)',
  ),
  maxConnectionsPerAddress: v(
    'MAX_CONNECTIONS_PER_ADDRESS',
    250,
    integer(1, 1_000_000),
    "open connections one client address may hold (its share of MAX_CONNECTIONS); more are closed at once. A trusted proxy's address (TRUST_PROXY) is not capped: it speaks for everyone behind it",
  ),
  firstByteTimeoutMs: v(
    'FIRST_BYTE_TIMEOUT_MS',
    3_000,
    integer(100, 600_000),
    'ms a new connection may stay silent before its first byte; then it is closed (sooner than HEADERS_TIMEOUT_MS, which holds once a request has begun)',
  ),
  shutdownGraceSeconds: v(
    'SHUTDOWN_GRACE_SECONDS',
    5,
    integer(0, 600),
    'on SIGTERM, seconds Nubis keeps serving every request (old and new connections) while /readyz answers 503, so a load balancer stops sending first; then new connections are refused and the drain begins (SIGINT skips it; 0 in the emulator preset)',
  ),
  shutdownTimeoutMs: v(
    'SHUTDOWN_TIMEOUT_MS',
    10_000,
    integer(0, 600_000),
    'after the grace period, ms in-flight requests get to finish before their connections are cut',
  ),
  computeDriver: v(
    'COMPUTE_DRIVER',
    'simulated' as 'simulated' | 'lxd',
    oneOf('simulated', 'lxd'),
    'compute driver that runs the servers: `simulated` (state and timings only, no machines) or `lxd` (real machines on LXD or Incus; see Running real servers)',
  ),
  lxdUrl: v(
    'LXD_URL',
    '/var/lib/lxd/unix.socket',
    text,
    'lxd driver: the engine, a unix socket path (Incus: /var/lib/incus/unix.socket) or https://host:8443',
  ),
  lxdClientCert: v('LXD_CLIENT_CERT', '', text, 'lxd driver over https: PEM file of the client certificate'),
  lxdClientKey: v('LXD_CLIENT_KEY', '', text, 'lxd driver over https: PEM file of the client key'),
  lxdServerCert: v(
    'LXD_SERVER_CERT',
    '',
    text,
    "lxd driver over https: PEM file of the engine's certificate to trust (default: the system CAs)",
  ),
  lxdProject: v('LXD_PROJECT', '', text, 'lxd driver: engine project the servers live in (empty: default)'),
  lxdStoragePool: v('LXD_STORAGE_POOL', 'nubis', text, "lxd driver: storage pool of the servers' root disks"),
  lxdStorageDriver: v(
    'LXD_STORAGE_DRIVER',
    'btrfs',
    text,
    "lxd driver: driver `nubis compute setup` creates the storage pool with when it is missing (btrfs, zfs, lvm: with quotas, each root disk the plan's size; dir has none)",
  ),
  lxdStorageSize: v(
    'LXD_STORAGE_SIZE',
    '',
    text,
    "lxd driver: size of the loop file `nubis compute setup` makes a new pool on, e.g. 100GiB (empty: the engine's default; ignored for dir)",
  ),
  computeJobAttempts: v(
    'COMPUTE_JOB_ATTEMPTS',
    12,
    integer(1, 1000),
    'lxd driver: attempts at an engine action (1 s, 2 s, 4 s ... 30 s apart) before the server shows the failure',
  ),
  computeJobConcurrency: v(
    'COMPUTE_JOB_CONCURRENCY',
    4,
    integer(1, 256),
    'lxd driver: engine actions one instance performs at once',
  ),
  computeReconcileSeconds: v(
    'COMPUTE_RECONCILE_SECONDS',
    30,
    integer(1, 86400),
    "lxd driver: seconds between two reconciliations of the servers' power with the engine's",
  ),
  computeResyncSeconds: v(
    'COMPUTE_RESYNC_SECONDS',
    600,
    integer(1, 86400),
    "lxd driver: longest time between two full reads of every instance; between them a reconciliation re-reads only what the engine's events said changed",
  ),
  computeUsageSeconds: v(
    'COMPUTE_USAGE_SECONDS',
    60,
    integer(1, 86400),
    "lxd driver: seconds between two readings of the running machines' counters (one engine call: the traffic meter and the usage graphs)",
  ),
  computeObserveTimeoutSeconds: v(
    'COMPUTE_OBSERVE_TIMEOUT_SECONDS',
    10,
    integer(1, 3600),
    'lxd driver: longest a reconciliation waits for the engine before its servers show EngineReachable=false and power unknown',
  ),
  computeGracefulStopSeconds: v(
    'COMPUTE_GRACEFUL_STOP_SECONDS',
    30,
    integer(1, 3600),
    'lxd driver: seconds a stop or reboot waits for the guest to shut down cleanly before forcing it (the event says so)',
  ),
  computeActionTimeoutSeconds: v(
    'COMPUTE_ACTION_TIMEOUT_SECONDS',
    3600,
    integer(10, 86400),
    'lxd driver: longest a server shows an engine action under way before it settles regardless',
  ),
  simProvisionSeconds: v(
    'SIM_PROVISION_SECONDS',
    60,
    integer(0, 86400),
    'simulated driver: seconds a new server spends provisioning',
  ),
  simBootSeconds: v(
    'SIM_BOOT_SECONDS',
    10,
    integer(0, 86400),
    'simulated driver: seconds a start (or rescue toggle of a stopped server) spends booting',
  ),
  simStopSeconds: v('SIM_STOP_SECONDS', 5, integer(0, 86400), 'simulated driver: seconds a stop spends stopping'),
  simRebootSeconds: v(
    'SIM_REBOOT_SECONDS',
    15,
    integer(0, 86400),
    'simulated driver: seconds a reboot (or rescue toggle of a running server) spends rebooting',
  ),
  simRebuildSeconds: v(
    'SIM_REBUILD_SECONDS',
    90,
    integer(0, 86400),
    'simulated driver: seconds a rebuild or reinstall spends writing the image',
  ),
  simResizeSeconds: v(
    'SIM_RESIZE_SECONDS',
    30,
    integer(0, 86400),
    'simulated driver: seconds a resize takes (a running server is rebooted by it)',
  ),
  simSnapshotSecondsPerGb: v(
    'SIM_SNAPSHOT_SECONDS_PER_GB',
    2,
    integer(0, 3600),
    'simulated driver: seconds per GB of disk data to take or restore a snapshot or backup',
  ),
  simBandwidthGbPerDay: v(
    'SIM_BANDWIDTH_GB_PER_DAY',
    2,
    integer(0, 1_000_000),
    'simulated driver: average traffic a running server sends per day (each server varies around it)',
  ),
  simInboundGbPerDay: v(
    'SIM_INBOUND_GB_PER_DAY',
    0,
    integer(0, 1_000_000),
    'simulated driver: traffic every running server receives per day besides what it asks for (a flood from outside)',
  ),
  simHosts: v(
    'SIM_HOSTS',
    1,
    integer(1, 1000),
    'simulated driver: hosts each region has (named <region>-1, <region>-2, …); a new server lands on the one with most room',
  ),
  simHostVcpus: v('SIM_HOST_VCPUS', 64, integer(1, 100_000), 'simulated driver: vCPUs each simulated host has'),
  simHostMemoryGb: v(
    'SIM_HOST_MEMORY_GB',
    256,
    integer(1, 1_000_000),
    'simulated driver: memory each simulated host has, in GB',
  ),
  simHostDiskGb: v(
    'SIM_HOST_DISK_GB',
    4000,
    integer(1, 100_000_000),
    'simulated driver: storage each simulated host has, in GB',
  ),
  trafficMetered: v(
    'TRAFFIC_METERED',
    'outbound',
    oneOf('outbound', 'both'),
    "which of a server's public traffic counts against its allowance: outbound (what it sends, as providers bill it) or both directions; the graphs show both either way",
  ),
  backupRetentionDays: v(
    'BACKUP_RETENTION_DAYS',
    7,
    integer(1, 365),
    'days an automatic backup is kept before the backup sweep deletes it',
  ),
  paymentProcessor: v<'stripe' | 'simulated' | 'off' | null>(
    'PAYMENT_PROCESSOR',
    null,
    oneOf('stripe', 'simulated', 'off'),
    'card top-ups: `stripe` (needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET), `simulated` (a checkout page that pays, fails or cancels on demand; the emulator preset) or `off`; default: `stripe` when STRIPE_SECRET_KEY is set, else off',
  ),
  stripeSecretKey: v<string | null>(
    'STRIPE_SECRET_KEY',
    null,
    secret(8),
    "Stripe's secret API key (`sk_live_…`, `sk_test_…`); without it and STRIPE_WEBHOOK_SECRET card top-ups are off and say so",
  ),
  stripeWebhookSecret: v<string | null>(
    'STRIPE_WEBHOOK_SECRET',
    null,
    secret(8),
    'signing secret (`whsec_…`) of the Stripe webhook endpoint that posts to PUBLIC_URL/webhooks/stripe',
  ),
  stripeWebhookToleranceSeconds: v(
    'STRIPE_WEBHOOK_TOLERANCE_SECONDS',
    300,
    integer(1, 86400),
    "seconds a Stripe webhook's signed timestamp may lie from the system clock (older deliveries are refused as replays)",
  ),
  stripeApiUrl: v<string | null>(
    'STRIPE_API_URL',
    null,
    url('http:', 'https:'),
    "where the stripe package sends its API calls (its host, port and protocol), for a proxy or a local stand-in; default Stripe's own",
  ),
  simulatedCheckoutExpirySeconds: v(
    'SIMULATED_CHECKOUT_EXPIRY_SECONDS',
    86_400,
    integer(60, 86_400),
    "seconds the simulated processor's checkout page may be left unpaid before the payment shows `expired` (as a Stripe Checkout Session expires, by default after 24 hours)",
  ),
  paymentMinimum: v(
    'PAYMENT_MINIMUM',
    5,
    integer(1, 1_000_000),
    'smallest top-up a customer may ask for, in whole USD',
  ),
  paymentMaximum: v(
    'PAYMENT_MAXIMUM',
    10_000,
    integer(1, 100_000_000),
    'largest top-up a customer may ask for, in whole USD',
  ),
  bankTransferPendingMax: v(
    'BANK_TRANSFER_PENDING_MAX',
    5,
    integer(1, 1_000),
    'bank transfers one account may have pending (asked for, not yet received nor expired) at once; one more is a 403',
  ),
  bankTransferExpiryDays: v(
    'BANK_TRANSFER_EXPIRY_DAYS',
    30,
    integer(1, 3_650),
    "days a bank transfer waits for its money; then it is `expired`, leaves the operator's list and can no longer be marked received (money that arrives later is credited by hand)",
  ),
  billingFile: v<string | null>(
    'BILLING_FILE',
    null,
    text,
    "JSON file of the seller's details (on every invoice document, and the bank account for transfers) and VAT rates per country, replacing the shipped `src/billing/billing.json` (its rates are examples, not tax advice)",
  ),
  journalSize: v(
    'JOURNAL_SIZE',
    0,
    integer(0, 100_000),
    'requests the request journal (GET /admin/requests) keeps per instance; 0 = off (1000 in the emulator preset)',
  ),
} as const;

/**
 * Emulator tools (reset, saved states, fault rules, the simulated card processor) wipe, replace or
 * fake what customers see: only a deployment that asked for them has them, an emulator
 * (NUBIS_MODE=emulator) or a test deployment (CLOCK=virtual). The one rule, for routes and start-up.
 */
export function emulatorToolsOn(config: Pick<Config, 'mode' | 'clock'>): boolean {
  return config.mode === 'emulator' || config.clock === 'virtual';
}
export const emulatorToolsOff = 'emulator tools are off: set NUBIS_MODE=emulator or CLOCK=virtual';

/**
 * Variables that configure one integration together: with one of them set, every other must be,
 * and `required` says when all must be set even with none given. Half a configuration stops the
 * start with one line naming the missing variable, rather than failing at the first use. One
 * entry per integration: add a line for a new one.
 */
interface Integration {
  /** What the variables configure, as the message names it. */
  name: string;
  together: string[];
  required?: { when: (config: Config) => boolean; because: string };
}

export const integrations: Integration[] = [
  {
    name: 'Stripe',
    together: ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'],
    required: { when: (config) => config.paymentProcessor === 'stripe', because: 'PAYMENT_PROCESSOR=stripe' },
  },
  { name: 'PowerDNS (reverse DNS)', together: ['PDNS_API_URL', 'PDNS_API_KEY'] },
  {
    name: 'LXD over HTTPS',
    together: ['LXD_CLIENT_CERT', 'LXD_CLIENT_KEY'],
    required: {
      when: (config) => config.computeDriver === 'lxd' && /^https:/i.test(config.lxdUrl),
      because: 'COMPUTE_DRIVER=lxd reaches LXD_URL over https',
    },
  },
];

function checkIntegrations(env: Record<string, string | undefined>, config: Config): void {
  for (const { name, together, required } of integrations) {
    const given = together.filter((variable) => env[variable] !== undefined && env[variable] !== '');
    if (given.length === together.length || (given.length === 0 && !required?.when(config))) continue;
    const missing = together.find((variable) => !given.includes(variable));
    const why = given.length ? `${given.join(' and ')} ${given.length > 1 ? 'are' : 'is'} set` : required?.because;
    throw new ConfigError(`${missing} is missing: ${why}, and ${name} needs ${together.join(' and ')} together`);
  }
}

/** What NUBIS_MODE=emulator changes, for every variable the environment does not set itself. */
export const emulatorPreset: Partial<Config> = {
  clock: 'virtual',
  autoActivate: true,
  adminToken: 'nubis-emulator-admin-token',
  passwordHashCost: 12,
  rateRegisterPerMinute: 1_000_000,
  rateLoginPerMinute: 1_000_000,
  rateActivatePerMinute: 1_000_000,
  rateResetPerMinute: 1_000_000,
  rateAccountInfoPerMinute: 1_000_000,
  rateAccountUpdatePerMinute: 1_000_000,
  ratePerTokenPerSecond: 1_000_000,
  journalSize: 1000,
  // A development emulator has no load balancer in front of it: stop at once.
  shutdownGraceSeconds: 0,
  // Simulated transitions in seconds, so `--wait` in a dev session answers while one watches
  // (a test that needs the real timings sets SIM_* itself).
  simProvisionSeconds: 3,
  simBootSeconds: 2,
  simStopSeconds: 1,
  simRebootSeconds: 2,
  simRebuildSeconds: 3,
  simResizeSeconds: 2,
  simSnapshotSecondsPerGb: 1,
  paymentProcessor: 'simulated',
};

type Variables = typeof variables;
export type Config = { [K in keyof Variables]: Variables[K]['default'] };

/** Reads the configuration; a bad value throws a ConfigError naming the variable. */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  overrides: Partial<Config> = {},
): Config {
  const config: Record<string, unknown> = {};
  for (const [key, variable] of Object.entries(variables) as [keyof Config, Variable<unknown>][]) {
    const raw = env[variable.env];
    config[key] = raw === undefined || raw === '' ? variable.default : variable.parse(raw, variable.env);
  }
  const unset = (key: keyof Config) => {
    const raw = env[(variables[key] as Variable<unknown>).env];
    return raw === undefined || raw === '';
  };
  if (config.mode === 'emulator')
    for (const [key, value] of Object.entries(emulatorPreset) as [keyof Config, unknown][])
      if (unset(key)) config[key] = value;
  checkIntegrations(env, config as Config);
  if (config.paymentProcessor === 'simulated' && !emulatorToolsOn(config as Config))
    throw new ConfigError(
      `PAYMENT_PROCESSOR=simulated lets any customer credit itself: ${emulatorToolsOff} (or choose stripe or off)`,
    );
  if (config.seed !== null) {
    // A seed makes every secret predictable: never on a server people rely on.
    if (config.mode !== 'emulator')
      throw new ConfigError(
        'NUBIS_SEED makes every token, password and key predictable: it is for emulators only (NUBIS_MODE=emulator, nubis dev)',
      );
    if (config.clock !== 'virtual')
      throw new ConfigError('NUBIS_SEED needs CLOCK=virtual (the clock is part of what it fixes)');
    // A seeded instance starts from nothing, so by default it keeps nothing; and nothing happens
    // between requests (periodic work runs when the clock is advanced).
    if (unset('dataDir')) config.dataDir = ':memory:';
    if (unset('sweeps')) config.sweeps = false;
  }
  return { ...(config as Config), ...overrides };
}

/** Markdown rows of the configuration table (docs/configuration.md, `nubis help config`). */
export function configTable(): string {
  const rows = Object.values(variables).map((variable: Variable<unknown>) => {
    const def =
      variable.default === null
        ? '(unset)'
        : Array.isArray(variable.default)
          ? variable.default.join(',') || '(empty)'
          : String(variable.default);
    return `| \`${variable.env}\` | \`${def}\` | ${variable.doc} |`;
  });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}
