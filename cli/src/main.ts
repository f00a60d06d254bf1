// The nubis command's customer and operator commands. Every call goes through @nubis/sdk;
// Commander parses the command line (subcommands, generated --help, unknown options refused).
// Tables for people, `-o json` for scripts, one line on stderr for every error, and exit codes
// a script can rely on (exitCodes in command-kit.ts, listed in the README). Each noun's commands
// are a module of their own in commands/ (commands/server.ts for `nubis server …`).

import { Command, CommanderError, Option } from 'commander';
import { NubisError, WaitTimeoutError } from '@nubis/sdk';
import { CliError, type CommandKit, commandKit, exitCodes, type Io } from './command-kit.ts';
import { addAccountCommands } from './commands/account.ts';
import { addAdminCommands } from './commands/admin.ts';
import { addBackupCommands } from './commands/backup.ts';
import { addCatalogCommands } from './commands/catalog.ts';
import { addContextCommands } from './commands/context.ts';
import { addFloatingIpCommands } from './commands/floating-ip.ts';
import { addInvoiceCommands } from './commands/invoice.ts';
import { addLoginCommands } from './commands/login.ts';
import { addPaymentCommands } from './commands/payment.ts';
import { addServerCommands } from './commands/server.ts';
import { addSnapshotCommands } from './commands/snapshot.ts';
import { addSshKeyCommands } from './commands/ssh-key.ts';
import { addTokenCommands } from './commands/token.ts';
import { addVpcCommands } from './commands/vpc.ts';

export { exitCodes } from './command-kit.ts';

export async function runCli(
  argv: string[],
  io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  const program = buildProgram(io, commandWord(argv));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCodes.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return exitCodes.ok;
      io.stderr.write(`nubis: ${oneLine(error.message.replace(/^error: /, ''))}\n`);
      return exitCodes.usage;
    }
    const [message, code] = describe(error);
    io.stderr.write(`nubis: ${oneLine(message)}\n`);
    return code;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

function describe(error: unknown): [string, number] {
  if (error instanceof CliError) return [error.message, error.code];
  if (error instanceof WaitTimeoutError) return [error.message, exitCodes.timeout];
  if (error instanceof NubisError) {
    const byStatus: Record<number, number> = {
      400: exitCodes.usage,
      401: exitCodes.auth,
      403: exitCodes.auth,
      404: exitCodes.notFound,
      409: exitCodes.conflict,
      402: exitCodes.payment,
      429: exitCodes.rateLimited,
    };
    return [error.message, byStatus[error.status] ?? exitCodes.failed];
  }
  // fetch's own failure: no answer at all (refused, unknown host, reset).
  const cause = (error as { cause?: { code?: string; errors?: { code?: string }[] } }).cause;
  if ((error as Error)?.message === 'fetch failed' || cause?.code)
    return [
      `cannot reach the server: ${cause?.code ?? cause?.errors?.[0]?.code ?? (error as Error).message}`,
      exitCodes.unreachable,
    ];
  return [(error as Error).message ?? String(error), exitCodes.failed];
}

/**
 * Each noun's commands (the top-level commands a module adds), in the order `nubis --help` lists
 * them. A command line registers only its own noun's module: Commander's objects for the other
 * ~100 commands, and the compiling of their code, are a tenth of a command's own CPU.
 */
const commandModules: [names: string[], add: (program: Command, kit: CommandKit) => void][] = [
  [['login', 'logout'], addLoginCommands],
  [['context'], addContextCommands],
  [['account'], addAccountCommands],
  [['server'], addServerCommands],
  [['snapshot'], addSnapshotCommands],
  [['backup'], addBackupCommands],
  [['floating-ip'], addFloatingIpCommands],
  [['vpc'], addVpcCommands],
  [['ssh-key'], addSshKeyCommands],
  [['token'], addTokenCommands],
  [['invoice'], addInvoiceCommands],
  [['payment'], addPaymentCommands],
  [['region', 'image', 'plan'], addCatalogCommands],
  [['admin'], addAdminCommands],
];

/** The top-level commands this package answers; bin/nubis.ts sends these here. */
export const cliCommands = commandModules.flatMap(([names]) => names);

/** The first word that is neither an option nor the value of -o/--output/--context (bin/nubis.ts reads it alike). */
export function commandWord(argv: string[]): string | undefined {
  let at = 0;
  while (at < argv.length && argv[at]!.startsWith('-')) at += /^(-o|--output|--context)$/.test(argv[at]!) ? 2 : 1;
  return argv[at];
}

/** The program with the module of `command` alone, or with every module (help, an unknown command). */
function buildProgram(io: Io, command?: string): Command {
  const kit = commandKit(io);
  const program = new Command('nubis');
  kit
    .configure(program)
    .description('Customer and operator commands for a Nubis server (see also: nubis help for the server commands)')
    .addOption(
      new Option('-o, --output <format>', 'table for people, json for scripts')
        .choices(['table', 'json'])
        .default('table'),
    )
    .option('--context <name>', 'the stored context to use (default: the current one)')
    .addHelpText(
      'after',
      `
A context (URL and token) is stored by \`nubis login\`; NUBIS_URL, NUBIS_TOKEN and ADMIN_TOKEN override it.
Exit codes: 0 ok, 1 failed, 2 usage or input refused (400), 3 not logged in or not allowed (401/403),
4 not found, 5 wrong state (409), 6 payment required (402), 7 rate limited (429), 8 --wait gave up,
9 server unreachable.`,
    );
  const own = commandModules.find(([names]) => command !== undefined && names.includes(command));
  for (const [, add] of own ? [own] : commandModules) add(program, kit);
  return program;
}

/** The CLI part of `nubis --help`: the command groups and their one-line descriptions. */
export function cliHelp(): string {
  const program = buildProgram({ stdout: process.stdout, stderr: process.stderr, env: process.env });
  const width = Math.max(...program.commands.map((command) => command.name().length)) + 2;
  const rows = program.commands.map(
    (command) =>
      `  ${command.name().padEnd(width)}${command.description()}${command.commands.length ? ` (${command.commands.map((sub) => sub.name()).join('|')})` : ''}`,
  );
  return `\nCustomer and operator commands (nubis <command> --help for each; -o json for scripts):\n${rows.join('\n')}\n`;
}
