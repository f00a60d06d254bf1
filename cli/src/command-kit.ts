// What every command module shares: exit codes, the command-line error, the argument parsers,
// and the kit of helpers built once per program (so output and errors stay one style everywhere).

import type { Command } from 'commander';
import { createNubisClient, type NubisClient, type PowerState, type Transport, waitForServer } from '@nubis/sdk';
import { activeContext, type Context } from './context.ts';
import { type Column, type Format, table } from './output.ts';
import { nodeTransport, UnreachableError } from './transport.ts';

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

/** How long a call may stay silent before the command gives up on it (exit 9). */
export const silenceMs = 30_000;

/**
 * An SDK client for the CLI, sending on node:http (transport.ts): a request that gets no answer
 * at all (refused, unknown host, reset, a certificate refused, silence) fails with one line
 * naming the URL tried, since a wrong NUBIS_URL or context is the usual cause.
 */
export function clientOf(url: string, token?: string | null, timeoutMs = silenceMs): NubisClient {
  const send = nodeTransport(timeoutMs);
  const reaching: Transport = async (request) => {
    try {
      return await send(request);
    } catch (error) {
      if (!(error instanceof UnreachableError)) throw error;
      throw new CliError(`cannot reach ${url}: ${error.message}`, exitCodes.unreachable);
    }
  };
  return createNubisClient({ baseUrl: url, token, transport: reaching });
}

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

/** Where a command writes and what environment it reads. */
export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export interface GlobalOptions {
  output: Format;
  context?: string;
}

/** --wait and --timeout, as a command parses them. */
export interface WaitOptions {
  wait?: boolean;
  timeout: number;
}

type SettleState = PowerState | 'removed';

/** The helpers every command module is handed. */
export interface CommandKit {
  io: Io;
  /** Errors become one line (runCli), never Commander's own exit. */
  configure(command: Command): Command;
  globals(command: Command): GlobalOptions;
  /** A group: a command of subcommands; alone, it is a usage error naming where help is. */
  group(parent: Command, name: string, description: string): Command;
  leaf(parent: Command, spec: string, description: string): Command;
  client(command: Command): NubisClient;
  adminClient(command: Command): NubisClient;
  print(command: Command, data: unknown, human: () => string): void;
  printRows(command: Command, data: unknown, rows: Row[], columns: Column[]): void;
  done(command: Command, data: unknown, message: string): void;
  /** Adds --wait and --timeout. */
  waitOption(command: Command): Command;
  /** With --wait, polls until the server settles (a progress line on a terminal only). */
  settle(
    command: Command,
    api: NubisClient,
    server: number | string,
    states: SettleState[],
    options: WaitOptions,
  ): Promise<unknown>;
  /** An accepted server action: with --wait, the state the server settled in; else that it was accepted. */
  actionDone(
    command: Command,
    api: NubisClient,
    server: number | string,
    answer: unknown,
    accepted: string,
    options: WaitOptions,
    states?: SettleState[],
  ): Promise<void>;
}

export function commandKit(io: Io): CommandKit {
  const configure = (command: Command): Command =>
    command
      .exitOverride()
      .configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
        outputError: () => {},
      })
      .showSuggestionAfterError(true);
  const globals = (command: Command): GlobalOptions => command.optsWithGlobals() as GlobalOptions;
  const context = (command: Command): Context => {
    const found = activeContext(globals(command).context, io.env);
    if (!found) throw new CliError('not logged in: run nubis login --url URL (or set NUBIS_URL)', exitCodes.auth);
    return found;
  };
  const print = (command: Command, data: unknown, human: () => string) => {
    io.stdout.write(globals(command).output === 'json' ? `${JSON.stringify(data ?? null, null, 2)}\n` : human());
  };
  const done = (command: Command, data: unknown, message: string) =>
    print(command, data ?? { success: true }, () => `${message}\n`);
  const settle: CommandKit['settle'] = async (command, api, server, states, options) => {
    if (!options.wait) return undefined;
    const tty = io.stderr.isTTY === true && globals(command).output !== 'json';
    const started = Date.now();
    const frames = ['|', '/', '-', '\\'];
    let frame = 0;
    try {
      return await waitForServer(api, server, states, {
        timeoutMs: options.timeout * 1000,
        intervalMs: 500,
        onPoll: (seen) => {
          if (tty)
            io.stderr.write(
              `\r${frames[frame++ % frames.length]} server ${server}: ${seen.power} (${Math.round((Date.now() - started) / 1000)}s)\u001b[K`,
            );
        },
      });
    } finally {
      if (tty) io.stderr.write('\r\u001b[K');
    }
  };
  return {
    io,
    configure,
    globals,
    group(parent, name, description) {
      const command = configure(parent.command(name).description(description));
      command.action(() => {
        throw new CliError(`missing command: see nubis ${command.name()} --help`, exitCodes.usage);
      });
      return command;
    },
    leaf: (parent, spec, description) => configure(parent.command(spec).description(description)),
    client(command) {
      const found = context(command);
      if (!found.token) throw new CliError('no token in this context: run nubis login', exitCodes.auth);
      return clientOf(found.url, found.token);
    },
    adminClient(command) {
      const found = context(command);
      if (!found.admin_token)
        throw new CliError(
          'no operator token: run nubis login --admin-token TOKEN (or set ADMIN_TOKEN)',
          exitCodes.auth,
        );
      return clientOf(found.url, found.admin_token);
    },
    print,
    printRows: (command, data, rows, columns) => print(command, data, () => table(rows, columns)),
    done,
    waitOption: (command) =>
      command
        .option('--wait', 'wait until the server reaches the state')
        .option('--timeout <seconds>', 'give up waiting after this long (exit 8)', number('--timeout'), 600),
    settle,
    async actionDone(command, api, server, answer, accepted, options, states = ['running', 'stopped']) {
      const settled = await settle(command, api, server, states, options);
      done(command, settled ?? answer, settled ? `server ${server} is ${(settled as Row).power}` : accepted);
    },
  };
}
