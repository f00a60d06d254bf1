// The instance's own settings: its mode (server or emulator), seed, clock, log level, server key,
// operator token and password hashing.

import { area, variable } from './config-area.ts';
import { integer, oneOf, secret, text } from './config-parsers.ts';

export const platformConfig = area({
  title: 'The instance',
  variables: {
    mode: variable(
      'NUBIS_MODE',
      'server' as 'server' | 'emulator',
      oneOf('server', 'emulator'),
      '`server`, or `emulator` (what `nubis dev` sets): virtual clock, accounts activated at registration, relaxed rate limits, simulated transitions of seconds (provisioning 3 s, boot 2 s, stop 1 s, reboot 2 s, rebuild 3 s, resize 2 s, snapshots 1 s per GB), ADMIN_TOKEN `nubis-emulator-admin-token` and a seeded account whose token is printed at start; a variable set explicitly still wins',
    ),
    seed: variable<string | null>(
      'NUBIS_SEED',
      null,
      text,
      'emulator only (refused otherwise): every made-up value (uuids, tokens, passwords, addresses, the server key, request ids) follows from this seed and the order of requests, and the virtual clock starts at midnight of a day of 2030 the seed picks and stands still until advanced; the instance starts empty (and a reset starts it over); nothing it makes is secret',
    ),
    adminToken: variable<string | null>(
      'ADMIN_TOKEN',
      null,
      secret(16),
      'enables the operator API under /admin (Bearer token, 16+ characters); unset, `nubis serve` uses the token in DATA_DIR/admin-token, which its first start on an empty database makes (0600) and names',
    ),
    secretKey: variable<string | null>(
      'SECRET_KEY',
      null,
      secret(32),
      'server key (32+ characters) that hashes tokens and encrypts stored secrets; default: generated into DATA_DIR/secret.key. Several instances must share one',
    ),
    secretKeyFile: variable<string | null>(
      'SECRET_KEY_FILE',
      null,
      text,
      'file holding the server key when SECRET_KEY is not set (created 0600 on first start); default DATA_DIR/secret.key. Keep it apart from DATA_DIR, so a copy of the data is not a copy of the key',
    ),
    clock: variable(
      'CLOCK',
      'system' as 'system' | 'virtual',
      oneOf('system', 'virtual'),
      '`system`, or `virtual` to let POST /admin/clock/advance move time',
    ),
    logLevel: variable(
      'LOG_LEVEL',
      'info',
      oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
      'pino log level',
    ),
    passwordHashCost: variable(
      'PASSWORD_HASH_COST',
      15,
      integer(10, 20),
      'scrypt cost as log2(N); 15 = 32 MiB per hash',
    ),
    passwordHashConcurrency: variable(
      'PASSWORD_HASH_CONCURRENCY',
      16,
      integer(1, 10_000),
      'password hashes (scrypt) under way at once in this process, queued ones included; beyond it login, register, reset and password changes answer 503 with Retry-After',
    ),
  },
  emulator: { clock: 'virtual', adminToken: 'nubis-emulator-admin-token', passwordHashCost: 12 },
});

/**
 * Emulator tools (reset, saved states, fault rules, the simulated card processor) wipe, replace or
 * fake what customers see: only a deployment that asked for them has them, an emulator
 * (NUBIS_MODE=emulator) or a test deployment (CLOCK=virtual). The one rule, for routes and start-up.
 */
export function emulatorToolsOn(config: { mode: 'server' | 'emulator'; clock: 'system' | 'virtual' }): boolean {
  return config.mode === 'emulator' || config.clock === 'virtual';
}
export const emulatorToolsOff = 'emulator tools are off: set NUBIS_MODE=emulator or CLOCK=virtual';
