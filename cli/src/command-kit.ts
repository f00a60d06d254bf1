// What every command module shares: exit codes, the command-line error, the argument parsers,
// and the kit of helpers main.ts builds once (so output and errors stay one style everywhere).

import type { Command } from 'commander';
import type { NubisClient } from '@nubis/sdk';
import type { Column } from './output.ts';

/** What the process exits with. */
export const exitCodes = {
  ok: 0,
  /** anything else: the server failed (5xx) or answered something unexpected */
  failed: 1,
  /** the command line is wrong (unknown command or option, missing argument) or the API refused the input (400) */
  usage: 2,
  /** no context or token, or the token is refused or lacks the right (401, 403) */
  auth: 3,
  /** the resource does not exist (404) */
  notFound: 4,
  /** the resource is in the wrong state for that (409) */
  conflict: 5,
  /** the account's balance does not cover it (402) */
  payment: 6,
  /** a rate limit refused the call (429) */
  rateLimited: 7,
  /** --wait gave up before the server got there */
  timeout: 8,
  /** the server could not be reached */
  unreachable: 9,
} as const;

/** An error of the command line or of a call: one line on stderr, and its exit code. */
export class CliError extends Error {
  readonly code: number;
  constructor(message: string, code: number) {
    super(message);
    this.code = code;
  }
}

export type Row = Record<string, unknown>;

/** An id argument: digits are the integer id, anything else a uuid. */
export const ref = (value: string): number | string => (/^\d+$/.test(value) ? Number(value) : value);

export function number(name: string) {
  return (value: string): number => {
    if (!/^-?\d+(\.\d+)?$/.test(value)) throw new CliError(`${name} must be a number, got "${value}"`, exitCodes.usage);
    return Number(value);
  };
}

export function boolean(name: string) {
  return (value: string): boolean => {
    if (/^(true|yes|on|1)$/i.test(value)) return true;
    if (/^(false|no|off|0)$/i.test(value)) return false;
    throw new CliError(`${name} must be true or false, got "${value}"`, exitCodes.usage);
  };
}

/** The helpers main.ts hands to each command module. */
export interface CommandKit {
  group(parent: Command, name: string, description: string): Command;
  leaf(parent: Command, spec: string, description: string): Command;
  client(command: Command): NubisClient;
  adminClient(command: Command): NubisClient;
  print(command: Command, data: unknown, human: () => string): void;
  printRows(command: Command, data: unknown, rows: Row[], columns: Column[]): void;
  done(command: Command, data: unknown, message: string): void;
}
