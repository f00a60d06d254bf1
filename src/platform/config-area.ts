// An area's configuration: the variables one folder of src/ reads (each with its default, parser
// and the line docs/configuration.md shows), what the emulator preset changes among them, and the
// ones that configure an integration together. src/config.ts assembles every area into one.

import type { Parser } from './config-parsers.ts';

export interface Variable<T> {
  env: string;
  default: T;
  parse: Parser<T>;
  doc: string;
}

export const variable = <T>(env: string, def: T, parse: Parser<T>, doc: string): Variable<T> => ({
  env,
  default: def,
  parse,
  doc,
});

/** An area's variables by the key the code reads them under (`config.smtpUrl`). */
export type Variables = Record<string, Variable<unknown>>;

/** The values an area's variables give. */
export type ValuesOf<V extends Variables> = { [K in keyof V]: V[K]['default'] };

/**
 * Variables that configure one integration together: with one of them set, every other must be,
 * and `required` says when all must be set even with none given. Half a configuration stops the
 * start with one line naming the missing variable, rather than failing at the first use.
 */
export interface Integration<C> {
  /** What the variables configure, as the message names it. */
  name: string;
  together: string[];
  required?: { when(config: C): boolean; because: string };
}

export interface Area<V extends Variables> {
  /** The heading of the area's table in docs/configuration.md and `nubis help config`. */
  title: string;
  /** In the order the table lists them. */
  variables: V;
  /** What NUBIS_MODE=emulator changes, for every variable the environment does not set itself. */
  emulator?: Partial<ValuesOf<V>>;
  integrations?: Integration<ValuesOf<V>>[];
  /** A paragraph under the table. */
  note?: string;
}

/** Declares an area (the identity function, there to infer the variables' types). */
export const area = <V extends Variables>(declared: Area<V>): Area<V> => declared;
