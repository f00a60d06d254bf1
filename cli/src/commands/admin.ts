// `nubis admin ...`: the operator API (ADMIN_TOKEN) — accounts, outbox, clock, reset, servers,
// audit — and the emulator tools (admin-emulator.ts), through the SDK.

import type { Command } from 'commander';
import { unwrap } from '@nubis/sdk';
import { boolean, CliError, type CommandKit, exitCodes, number, type Row } from '../command-kit.ts';
import { addEmulatorCommands } from './admin-emulator.ts';
import { addHostCommands } from './admin-hosts.ts';
import { type Column, details, table } from '../output.ts';

export function addAdminCommands(program: Command, kit: CommandKit): void {
  const { group, leaf, adminClient, print, printRows, done } = kit;

  // --- operator -----------------------------------------------------------------------------
  const admin = group(
    program,
    'admin',
    'operator commands (ADMIN_TOKEN): accounts, outbox, clock, reset, servers, hosts, audit, faults, state, requests, events, webhooks',
  );
  const accountColumns: Column[] = [
    { header: 'ID', value: 'id' },
    { header: 'EMAIL', value: 'email' },
    { header: 'ACTIVATED', value: 'activated' },
    { header: 'BLOCKED', value: 'blocked' },
    { header: 'BALANCE', value: 'balance' },
    { header: 'SERVERS', value: (row) => (row.servers as { limit: number } | undefined)?.limit },
  ];
  const accounts = group(admin, 'accounts', 'accounts');
  leaf(accounts, 'list', 'list accounts')
    .option('--email <email>', 'only the one with this e-mail')
    .action(async (options, command: Command) => {
      const query = options.email ? { params: { query: { email: options.email } } } : {};
      const data = await unwrap(adminClient(command).GET('/admin/accounts', query));
      printRows(command, data, data.accounts as Row[], accountColumns);
    });
  leaf(accounts, 'show <account>', 'show an account (id, uuid or e-mail)').action(
    async (id: string, _options, command: Command) => {
      const data = await unwrap(
        adminClient(command).GET('/admin/accounts/{account}', { params: { path: { account: id } } }),
      );
      print(command, data, () => details(data as Row));
    },
  );
  leaf(accounts, 'update <account>', "change an account's flags and limits")
    .option('--activated <bool>', 'activated', boolean('--activated'))
    .option('--blocked <bool>', 'blocked', boolean('--blocked'))
    .option('--smtp <bool>', 'may send mail on port 25', boolean('--smtp'))
    .option('--servers-limit <n>', 'servers it may have', number('--servers-limit'))
    .action(async (id: string, options, command: Command) => {
      const body = {
        ...(options.activated !== undefined ? { activated: options.activated } : {}),
        ...(options.blocked !== undefined ? { blocked: options.blocked } : {}),
        ...(options.smtp !== undefined ? { smtp: options.smtp } : {}),
        ...(options.serversLimit !== undefined ? { servers_limit: options.serversLimit } : {}),
      };
      if (Object.keys(body).length === 0)
        throw new CliError(
          'nothing to change: give --activated, --blocked, --smtp or --servers-limit',
          exitCodes.usage,
        );
      const data = await unwrap(
        adminClient(command).PATCH('/admin/accounts/{account}', { params: { path: { account: id } }, body }),
      );
      print(command, data, () => table([data as Row], accountColumns));
    });
  leaf(accounts, 'credit <account> <amount>', 'add money in USD (negative debits)')
    .option('--note <text>', "shown in the account's transactions")
    .action(async (id: string, amount: string, options, command: Command) => {
      const data = await unwrap(
        adminClient(command).POST('/admin/accounts/{account}/credit', {
          params: { path: { account: id } },
          body: { amount: number('amount')(amount), ...(options.note ? { note: options.note } : {}) },
        }),
      );
      done(command, data, `credited ${amount} USD to ${id} (transaction ${data.id})`);
    });
  const transfers = group(admin, 'transfers', 'bank transfers customers announced');
  leaf(transfers, 'list', 'bank transfers waiting for money, the newest 100 first').action(
    async (_options, command: Command) => {
      const data = await unwrap(adminClient(command).GET('/admin/transfers'));
      printRows(command, data, data.transfers as Row[], [
        { header: 'ID', value: 'id' },
        { header: 'ACCOUNT', value: 'account_id' },
        { header: 'REFERENCE', value: 'reference' },
        { header: 'AMOUNT', value: 'amount' },
        { header: 'VAT%', value: 'taxrate' },
        { header: 'CREATED', value: 'ts_created' },
      ]);
    },
  );
  leaf(transfers, 'received <transaction>', 'mark a bank transfer received: credits the balance once').action(
    async (id: string, _options, command: Command) => {
      const data = await unwrap(
        adminClient(command).POST('/admin/transactions/{transaction}/received', {
          params: { path: { transaction: id } },
        }),
      );
      done(command, data, `transfer ${data.id} (${data.reference}) received: ${data.amount} USD credited`);
    },
  );
  leaf(admin, 'outbox', 'every mail the server sent, newest first')
    .option('--to <email>', 'only mail to this address')
    .action(async (options, command: Command) => {
      const query = options.to ? { params: { query: { to: options.to } } } : {};
      const data = await unwrap(adminClient(command).GET('/admin/outbox', query));
      printRows(command, data, data.messages as Row[], [
        { header: 'ID', value: 'id' },
        { header: 'TO', value: 'to' },
        { header: 'SUBJECT', value: 'subject' },
        { header: 'CREATED', value: 'created' },
        { header: 'DELIVERED', value: 'delivered' },
      ]);
    });
  const clock = group(admin, 'clock', "the server's clock");
  leaf(clock, 'show', 'the time and the clock mode').action(async (_options, command: Command) => {
    const data = await unwrap(adminClient(command).GET('/admin/clock'));
    print(command, data, () => `${data.now} (${data.mode})\n`);
  });
  leaf(clock, 'advance <seconds>', 'move the virtual clock forward').action(
    async (seconds: string, _options, command: Command) => {
      const data = await unwrap(
        adminClient(command).POST('/admin/clock/advance', { body: { seconds: number('seconds')(seconds) } }),
      );
      print(command, data, () => `${data.now}\n`);
    },
  );
  leaf(admin, 'reset', 'delete every account and resource (the catalog, clock and audit log stay)')
    .option('--yes', 'really do it')
    .action(async (options, command: Command) => {
      if (!options.yes) throw new CliError('reset deletes every account and resource: add --yes', exitCodes.usage);
      const data = await unwrap(adminClient(command).POST('/admin/reset'));
      done(command, data, 'every account and resource deleted');
    });
  const adminServerColumns: Column[] = [
    { header: 'ID', value: 'id' },
    { header: 'ACCOUNT', value: 'account_email' },
    { header: 'NAME', value: 'name' },
    { header: 'POWER', value: 'power' },
    { header: 'REGION', value: 'region' },
    { header: 'HOST', value: 'host' },
    { header: 'PLAN', value: 'plan' },
    { header: 'CREATED', value: 'created' },
  ];
  const servers = group(admin, 'servers', 'servers of every account');
  leaf(servers, 'list', 'list servers across accounts')
    .option('--account <account>', 'only this account (id, uuid or e-mail)')
    .option('--power <state>', 'only servers showing this power')
    .option('--region <id>', 'only this region', number('--region'))
    .option('--limit <n>', 'at most this many (default 100)', number('--limit'))
    .action(async (options, command: Command) => {
      const query = {
        ...(options.account ? { account: options.account } : {}),
        ...(options.power ? { power: options.power } : {}),
        ...(options.region ? { region: options.region } : {}),
        ...(options.limit ? { limit: options.limit } : {}),
      };
      const data = await unwrap(adminClient(command).GET('/admin/servers', { params: { query } as never }));
      printRows(command, data, data.servers as Row[], adminServerColumns);
    });
  leaf(servers, 'stop <server>', 'force a server off at once').action(
    async (id: string, _options, command: Command) => {
      const data = await unwrap(
        adminClient(command).POST('/admin/servers/{server}/stop', { params: { path: { server: id } } }),
      );
      print(command, data, () => table([data as Row], adminServerColumns));
    },
  );
  leaf(servers, 'remove <server>', "remove any account's server").action(
    async (id: string, _options, command: Command) => {
      const data = await unwrap(
        adminClient(command).DELETE('/admin/servers/{server}', { params: { path: { server: id } } }),
      );
      done(command, data, `server ${id} removed`);
    },
  );
  addHostCommands(admin, servers, kit, adminServerColumns);
  leaf(admin, 'audit', 'the operator audit log, newest first')
    .option('--call <text>', 'only calls whose route contains this')
    .option('--limit <n>', 'at most this many (default 100)', number('--limit'))
    .action(async (options, command: Command) => {
      const query = {
        ...(options.call ? { call: options.call } : {}),
        ...(options.limit ? { limit: options.limit } : {}),
      };
      const data = await unwrap(adminClient(command).GET('/admin/audit', { params: { query } }));
      printRows(command, data, data.entries as Row[], [
        { header: 'TIME', value: 'time' },
        { header: 'OPERATOR', value: 'operator' },
        { header: 'CLIENT', value: 'client' },
        { header: 'CALL', value: 'call' },
        { header: 'TARGET', value: 'target' },
        { header: 'STATUS', value: 'status' },
      ]);
    });

  addEmulatorCommands(admin, kit);
}
