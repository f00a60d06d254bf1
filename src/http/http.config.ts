// The HTTP listener: where it listens and is reached, whom it believes, its timeouts and
// connection caps, its shutdown, and the /metrics endpoint.

import { isIP } from 'node:net';
import { area, variable } from '../platform/config-area.ts';
import { ConfigError, integer, type Parser, secret, text, url } from '../platform/config-parsers.ts';

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

export const httpConfig = area({
  title: 'HTTP',
  variables: {
    port: variable('PORT', 8080, integer(0, 65535), 'TCP port the HTTP server listens on'),
    host: variable('HOST', '127.0.0.1', text, 'address the HTTP server binds to'),
    publicUrl: variable<string | null>(
      'PUBLIC_URL',
      null,
      url('http:', 'https:'),
      'the address people reach this server at, for the console links in mail (activation); default http://localhost:PORT',
    ),
    trustProxy: variable<TrustProxy>(
      'TRUST_PROXY',
      false,
      trustProxyValue,
      "behind a reverse proxy: the proxies' comma-separated addresses/CIDRs. Only a request whose peer is listed has its X-Forwarded-For believed (the client address for rate limits and the activity log), and only a listed peer escapes MAX_CONNECTIONS_PER_ADDRESS; `true` and hop counts are refused",
    ),
    headersTimeoutMs: variable(
      'HEADERS_TIMEOUT_MS',
      10_000,
      integer(1_000, 600_000),
      'ms a connection may take to send a request line and headers (a silent connection is closed with 408)',
    ),
    requestTimeoutMs: variable(
      'REQUEST_TIMEOUT_MS',
      30_000,
      integer(1_000, 3_600_000),
      'ms a whole request, headers and body, may take to arrive (a trickled body is cut with 408)',
    ),
    keepAliveTimeoutMs: variable(
      'KEEP_ALIVE_TIMEOUT_MS',
      5_000,
      integer(100, 600_000),
      'ms an idle keep-alive connection is kept open between requests',
    ),
    maxJsonDepth: variable(
      'MAX_JSON_DEPTH',
      32,
      integer(2, 1_000),
      'objects and arrays a JSON body may nest inside each other; a deeper body is refused (400 naming `body`) before it is parsed',
    ),
    maxConnections: variable(
      'MAX_CONNECTIONS',
      1_000,
      integer(1, 1_000_000),
      'open connections at most; more are closed at once (keep twice it under the descriptor limit, `ulimit -n`: a connection refused for its address is open for an instant)',
    ),
    maxConnectionsPerAddress: variable(
      'MAX_CONNECTIONS_PER_ADDRESS',
      250,
      integer(1, 1_000_000),
      "open connections one client address may hold (its share of MAX_CONNECTIONS); more are closed at once. A trusted proxy's address (TRUST_PROXY) is not capped: it speaks for everyone behind it",
    ),
    firstByteTimeoutMs: variable(
      'FIRST_BYTE_TIMEOUT_MS',
      3_000,
      integer(100, 600_000),
      'ms a new connection may stay silent before its first byte; then it is closed (sooner than HEADERS_TIMEOUT_MS, which holds once a request has begun)',
    ),
    shutdownGraceSeconds: variable(
      'SHUTDOWN_GRACE_SECONDS',
      5,
      integer(0, 600),
      'on SIGTERM, seconds Nubis keeps serving every request (old and new connections) while /readyz answers 503, so a load balancer stops sending first; then new connections are refused and the drain begins (SIGINT skips it; 0 in the emulator preset)',
    ),
    shutdownTimeoutMs: variable(
      'SHUTDOWN_TIMEOUT_MS',
      10_000,
      integer(0, 600_000),
      'after the grace period, ms in-flight requests get to finish before their connections are cut',
    ),
    metricsToken: variable<string | null>(
      'METRICS_TOKEN',
      null,
      secret(16),
      'enables GET /metrics (Prometheus text format) on the API port for `Authorization: Bearer <METRICS_TOKEN>` (16+ characters)',
    ),
    metricsPort: variable<number | null>(
      'METRICS_PORT',
      null,
      integer(0, 65535),
      'serves GET /metrics on its own listener at METRICS_HOST:METRICS_PORT instead (no token asked unless METRICS_TOKEN is set)',
    ),
    metricsHost: variable('METRICS_HOST', '127.0.0.1', text, 'address the METRICS_PORT listener binds to'),
  },
  // A development emulator has no load balancer in front of it: stop at once.
  emulator: { shutdownGraceSeconds: 0 },
});
