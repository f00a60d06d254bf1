// Per-server options (option/get, option/set): their names, accepted spellings, values and
// defaults. Stored as a JSON object of canonical name → text; unset means the default.

import { Invalid } from '../platform/errors.ts';

export const overagePolicies = ['power_off', 'throttle', 'charge'] as const;

export interface ServerOptions {
  bw_overage_policy: string;
  /** Share of the plan's bandwidth at which the policy applies; 1.0 is 100%. */
  bw_overage_threshold: number;
}

export type OptionName = keyof ServerOptions;

export const optionDefaults: Readonly<ServerOptions> = Object.freeze({
  bw_overage_policy: 'power_off',
  bw_overage_threshold: 1,
});

// The spec spells the threshold three ways (threshold, treshold in option names, tresgold in info).
const spellings: Record<string, OptionName> = {
  bw_overage_policy: 'bw_overage_policy',
  bw_overage_threshold: 'bw_overage_threshold',
  bw_overage_treshold: 'bw_overage_threshold',
  bw_overage_tresgold: 'bw_overage_threshold',
};

export function optionName(name: string): OptionName {
  const canonical = spellings[name.trim().toLowerCase()];
  if (!canonical)
    throw new Invalid(
      'name',
      `bad value: unknown option; known: bw_overage_policy, bw_overage_threshold (also spelled bw_overage_treshold)`,
    );
  return canonical;
}

function parseStored(stored: string): Partial<Record<OptionName, string>> {
  try {
    return JSON.parse(stored) as Partial<Record<OptionName, string>>;
  } catch {
    return {};
  }
}

export function effectiveOptions(stored: string): ServerOptions {
  if (stored === '{}') return optionDefaults;
  const values = parseStored(stored);
  return {
    bw_overage_policy: values.bw_overage_policy ?? optionDefaults.bw_overage_policy,
    bw_overage_threshold:
      values.bw_overage_threshold !== undefined
        ? Number(values.bw_overage_threshold)
        : optionDefaults.bw_overage_threshold,
  };
}

/** Checks a value for the option and gives the text to store. */
function normalize(name: OptionName, value: string): string {
  const text = value.trim();
  if (name === 'bw_overage_policy') {
    if (!(overagePolicies as readonly string[]).includes(text))
      throw new Invalid('value', `bad value: bw_overage_policy must be one of ${overagePolicies.join(', ')}`);
    return text;
  }
  const number = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(number > 0 && number <= 100))
    throw new Invalid(
      'value',
      'bad value: bw_overage_threshold must be a number above 0 and at most 100 (1.0 is 100%)',
    );
  return String(number);
}

/** The stored object after setting (or, for the text null, unsetting) one option. */
export function withOption(stored: string, name: OptionName, value: string | null): string {
  const values = parseStored(stored);
  if (value === null || value.trim().toLowerCase() === 'null') delete values[name];
  else values[name] = normalize(name, value);
  return JSON.stringify(values);
}
