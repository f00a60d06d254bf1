// Configuration: every environment variable Nubis reads, assembled from the areas that declare
// them beside their code (`src/<area>/*.config.ts`), so docs/configuration.md, `nubis help config`
// and start-up validation never drift apart. The rules that join areas are here too.

import { accountsConfig } from './accounts/accounts.config.ts';
import { auditConfig } from './audit/audit.config.ts';
import { billingConfig } from './billing/billing.config.ts';
import { catalogConfig } from './catalog/catalog.config.ts';
import { computeConfig } from './compute/compute.config.ts';
import { simulatedDriverConfig } from './compute/simulated-driver.config.ts';
import { dbConfig } from './db/db.config.ts';
import { floatingIpsConfig } from './floating-ips/floating-ips.config.ts';
import { httpConfig } from './http/http.config.ts';
import { rateLimitConfig } from './http/rate-limit.config.ts';
import { journalConfig } from './journal/journal.config.ts';
import { mailConfig } from './mail/mail.config.ts';
import { paymentsConfig } from './payments/payments.config.ts';
import type { Area, Variable, Variables } from './platform/config-area.ts';
import { ConfigError } from './platform/config-parsers.ts';
import { emulatorToolsOff, emulatorToolsOn } from './platform/platform.config.ts';
import { platformConfig } from './platform/platform.config.ts';
import { reverseDnsConfig } from './reverse-dns/reverse-dns.config.ts';
import { backupsConfig } from './snapshots/backups.config.ts';
import { sweepsConfig } from './sweeps/sweeps.config.ts';

export { ConfigError, readSettingsFile, redactUrl } from './platform/config-parsers.ts';
export type { TrustProxy } from './http/http.config.ts';
export { emulatorToolsOff, emulatorToolsOn } from './platform/platform.config.ts';

/** Every area, in the order docs/configuration.md lists them. A new `*.config.ts` is listed here. */
export const areas = [
  platformConfig,
  dbConfig,
  httpConfig,
  rateLimitConfig,
  accountsConfig,
  auditConfig,
  catalogConfig,
  floatingIpsConfig,
  computeConfig,
  simulatedDriverConfig,
  mailConfig,
  reverseDnsConfig,
  sweepsConfig,
  backupsConfig,
  billingConfig,
  paymentsConfig,
  journalConfig,
] as const;

type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (all: infer I) => void
  ? I
  : never;
type AllVariables = UnionToIntersection<(typeof areas)[number]['variables']>;
export type Config = { [K in keyof AllVariables]: AllVariables[K]['default'] };

/**
 * The variables of every area as one table, by key. A key or a variable declared by two areas
 * stops here, at the first import, naming both.
 */
export function assemble(declared: readonly Area<Variables>[]): Variables {
  const all: Variables = {};
  const areaOf = new Map<string, string>();
  for (const { title, variables } of declared)
    for (const [key, variable] of Object.entries(variables)) {
      for (const name of [key, variable.env]) {
        const first = areaOf.get(name);
        if (first) throw new Error(`${name} is declared by two areas of the configuration: ${first} and ${title}`);
        areaOf.set(name, title);
      }
      all[key] = variable;
    }
  return all;
}

/** The areas as the loops below read them, whatever each one's variables. */
const declaredAreas: readonly Area<Variables>[] = areas;

export const variables = assemble(declaredAreas) as AllVariables;

/** What NUBIS_MODE=emulator changes, for every variable the environment does not set itself. */
export const emulatorPreset: Partial<Config> = Object.assign({}, ...declaredAreas.map((area) => area.emulator ?? {}));

function checkIntegrations(env: Record<string, string | undefined>, config: Config): void {
  for (const { name, together, required } of declaredAreas.flatMap((area) => area.integrations ?? [])) {
    const given = together.filter((variable) => env[variable] !== undefined && env[variable] !== '');
    if (given.length === together.length || (given.length === 0 && !required?.when(config))) continue;
    const missing = together.find((variable) => !given.includes(variable));
    const why = given.length ? `${given.join(' and ')} ${given.length > 1 ? 'are' : 'is'} set` : required?.because;
    throw new ConfigError(`${missing} is missing: ${why}, and ${name} needs ${together.join(' and ')} together`);
  }
}

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

/** The configuration reference in Markdown, a table per area (docs/configuration.md, `nubis help config`). */
export function configTable(): string {
  return declaredAreas
    .map((area) => {
      const rows = Object.values(area.variables).map((variable) => {
        const def =
          variable.default === null
            ? '(unset)'
            : Array.isArray(variable.default)
              ? variable.default.join(',') || '(empty)'
              : String(variable.default);
        return `| \`${variable.env}\` | \`${def}\` | ${variable.doc} |`;
      });
      const table = ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
      return [`## ${area.title}`, table, ...(area.note ? [area.note] : [])].join('\n\n');
    })
    .join('\n\n');
}
