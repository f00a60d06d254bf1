// The pieces every area's configuration is written with: ConfigError, the parsers of a variable's
// text (each error names the variable and never prints a credential whole), and the settings files.

import { readFileSync } from 'node:fs';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Turns a variable's text into its value, or throws a ConfigError naming the variable. */
export type Parser<T> = (raw: string, name: string) => T;

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

export const integer =
  (min: number, max: number): Parser<number> =>
  (raw, name) => {
    if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
    const value = Number(raw);
    if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
    return value;
  };

export const oneOf =
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

export const url =
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
export const withPassword =
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

export const text: Parser<string> = (raw) => raw;

export const boolean: Parser<boolean> = (raw, name) => {
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
};

export const secret =
  (minLength: number): Parser<string> =>
  (raw, name) => {
    if (raw.length < minLength) throw new ConfigError(`${name} must be at least ${minLength} characters`);
    return raw;
  };
