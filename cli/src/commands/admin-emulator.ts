// `nubis admin faults|state|requests|events|webhooks`: the emulator tools of the operator API
// (fault injection, saved states, the request journal, events and webhooks), through the SDK.
// The kit (command-kit.ts) hands over the helpers every command uses, so output and errors stay one style.

import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { unwrap } from '@nubis/sdk';
import { CliError, type CommandKit, exitCodes, number, type Row } from '../command-kit.ts';
import type { Column } from '../output.ts';

export function addEmulatorCommands(admin: Command, kit: CommandKit): void {
  const { group, leaf, adminClient, print, printRows, done } = kit;
  const usage = (message: string) => new CliError(message, exitCodes.usage);

  // --- fault injection ---
  const faultColumns: Column[] = [
    { header: 'ID', value: 'id' },
    { header: 'MATCH', value: (row) => JSON.stringify(row.match) },
    { header: 'ACTION', value: (row) => JSON.stringify(row.action) },
    { header: 'REMAINING', value: 'remaining' },
    { header: 'FIRED', value: 'fired' },
  ];
  const faults = group(admin, 'faults', 'fault injection: make matching customer requests fail or answer late');
  leaf(faults, 'list', 'fault rules and how often each fired').action(async (_options, command: Command) => {
    const data = await unwrap(adminClient(command).GET('/admin/faults'));
    printRows(command, data, data.faults as Row[], faultColumns);
  });
  leaf(faults, 'add', 'add a rule (at least one of --status, --latency, --compute-fail)')
    .option('--method <method>', 'only this HTTP method')
    .option('--path <path>', 'a path, a route pattern, or a prefix ending in *')
    .option('--operation <id>', 'an operationId, e.g. createServer')
    .option('--account <account>', 'only this account (id, uuid or e-mail)')
    .option('--api <api>', 'v1.3 or v1')
    .option('--status <status>', 'answer this status in the API’s error shape', number('--status'))
    .option('--latency <ms>', 'answer this much later', number('--latency'))
    .option('--retry-after <seconds>', 'Retry-After of a 429 or 503', number('--retry-after'))
    .option('--compute-fail', 'answer as usual but make the compute action fail')
    .option('--times <n>', 'only the next N matching requests', number('--times'))
    .option('--probability <p>', 'chance that a matching request fires it (0 to 1)', number('--probability'))
    .option('--note <text>', 'why the rule exists')
    .action(async (options, command: Command) => {
      if (options.status === undefined && options.latency === undefined && !options.computeFail)
        throw usage('give --status, --latency or --compute-fail');
      const body = {
        match: {
          ...(options.method ? { method: String(options.method).toUpperCase() } : {}),
          ...(options.path ? { path: options.path } : {}),
          ...(options.operation ? { operation: options.operation } : {}),
          ...(options.account ? { account: options.account } : {}),
          ...(options.api ? { api: options.api } : {}),
        },
        action: {
          ...(options.status !== undefined ? { status: options.status } : {}),
          ...(options.latency !== undefined ? { latency_ms: options.latency } : {}),
          ...(options.retryAfter !== undefined ? { retry_after: options.retryAfter } : {}),
          ...(options.computeFail ? { compute_fail: true } : {}),
        },
        ...(options.times !== undefined ? { times: options.times } : {}),
        ...(options.probability !== undefined ? { probability: options.probability } : {}),
        ...(options.note ? { note: options.note } : {}),
      };
      const data = await unwrap(adminClient(command).POST('/admin/faults', { body: body as never }));
      print(command, data, () => `fault rule ${data.id} added\n`);
    });
  leaf(faults, 'remove <id>', 'remove one rule').action(async (id: string, _options, command: Command) => {
    await unwrap(adminClient(command).DELETE('/admin/faults/{id}', { params: { path: { id: number('id')(id) } } }));
    done(command, null, `fault rule ${id} removed`);
  });
  leaf(faults, 'clear', 'remove every rule').action(async (_options, command: Command) => {
    await unwrap(adminClient(command).DELETE('/admin/faults'));
    done(command, null, 'every fault rule removed');
  });

  // --- saved states ---
  const state = group(admin, 'state', 'saved states: export, import, and named saves on the server');
  leaf(state, 'export', 'the whole state as one JSON document')
    .option('--file <path>', 'write it to this file instead of standard output')
    .action(async (options, command: Command) => {
      const data = await unwrap(adminClient(command).POST('/admin/state/export'));
      if (options.file) {
        writeFileSync(options.file, `${JSON.stringify(data)}\n`, { mode: 0o600 });
        done(command, { file: options.file }, `state written to ${options.file}`);
      } else print(command, data, () => `${JSON.stringify(data)}\n`);
    });
  leaf(state, 'import <file>', 'replace the whole state with a document').action(
    async (file: string, _options, command: Command) => {
      let document: unknown;
      try {
        document = JSON.parse(readFileSync(file, 'utf8'));
      } catch (error) {
        throw usage(`${file}: not a state document: ${(error as Error).message}`);
      }
      const data = await unwrap(adminClient(command).POST('/admin/state/import', { body: document as never }));
      done(command, data, `state imported: ${data.rows} rows in ${data.tables} tables`);
    },
  );
  leaf(state, 'save <name>', 'keep the current state on the server').action(
    async (name: string, _options, command: Command) => {
      const data = await unwrap(adminClient(command).POST('/admin/state/save', { body: { name } }));
      done(command, data, `state saved as ${data.name}`);
    },
  );
  leaf(state, 'load <name>', 'replace the whole state with a saved one').action(
    async (name: string, _options, command: Command) => {
      const data = await unwrap(adminClient(command).POST('/admin/state/load', { body: { name } }));
      done(command, data, `state ${name} loaded: ${data.rows} rows`);
    },
  );
  leaf(state, 'list', 'the saved states').action(async (_options, command: Command) => {
    const data = await unwrap(adminClient(command).GET('/admin/state'));
    printRows(command, data, data.states as Row[], [
      { header: 'NAME', value: 'name' },
      { header: 'CREATED', value: 'created' },
      { header: 'SIZE', value: 'size' },
    ]);
  });
  leaf(state, 'remove <name>', 'remove a saved state').action(async (name: string, _options, command: Command) => {
    await unwrap(adminClient(command).DELETE('/admin/state/{name}', { params: { path: { name } } }));
    done(command, null, `saved state ${name} removed`);
  });

  // --- request journal and events ---
  leaf(admin, 'requests', 'the most recent customer requests (JOURNAL_SIZE), newest first')
    .option('--account <id>', 'only this account id', number('--account'))
    .option('--path <path>', 'a path, or a prefix ending in *')
    .option('--status <status>', 'only answers of this status', number('--status'))
    .option('--limit <n>', 'at most this many (default 100)', number('--limit'))
    .action(async (options, command: Command) => {
      const query = {
        ...(options.account ? { account: options.account } : {}),
        ...(options.path ? { path: options.path } : {}),
        ...(options.status ? { status: options.status } : {}),
        ...(options.limit ? { limit: options.limit } : {}),
      };
      const data = await unwrap(adminClient(command).GET('/admin/requests', { params: { query } }));
      printRows(command, data, data.requests as Row[], [
        { header: 'TIME', value: 'time' },
        { header: 'METHOD', value: 'method' },
        { header: 'PATH', value: 'path' },
        { header: 'STATUS', value: 'status' },
        { header: 'MS', value: 'duration_ms' },
        { header: 'ACCOUNT', value: 'account' },
      ]);
    });
  leaf(admin, 'events', 'resource changes after a sequence number, oldest first')
    .option('--after <n>', 'events after this sequence number', number('--after'))
    .option('--account <id>', 'only this account id', number('--account'))
    .option('--limit <n>', 'at most this many (default 100)', number('--limit'))
    .action(async (options, command: Command) => {
      const query = {
        ...(options.after !== undefined ? { after: options.after } : {}),
        ...(options.account ? { account: options.account } : {}),
        ...(options.limit ? { limit: options.limit } : {}),
      };
      const data = await unwrap(adminClient(command).GET('/admin/events', { params: { query } }));
      printRows(command, data, data.events as Row[], [
        { header: 'ID', value: 'id' },
        { header: 'OCCURRED', value: 'occurred' },
        { header: 'TYPE', value: 'type' },
        { header: 'ACCOUNT', value: 'account' },
        { header: 'RESOURCE', value: 'resource.uuid' },
        { header: 'DATA', value: (row) => JSON.stringify(row.data) },
      ]);
    });

  // --- webhooks ---
  const webhooks = group(admin, 'webhooks', "an account's webhooks");
  leaf(webhooks, 'add <account> <url>', "deliver the account's events to a URL, signed with --secret")
    .requiredOption('--secret <secret>', 'the signing secret (16 characters or more)')
    .action(async (account: string, url: string, options, command: Command) => {
      const data = await unwrap(
        adminClient(command).POST('/admin/accounts/{account}/webhooks', {
          params: { path: { account } },
          body: { url, secret: options.secret },
        }),
      );
      print(command, data, () => `webhook ${data.id} added\n`);
    });
  leaf(webhooks, 'list <account>', 'webhooks and the state of their deliveries').action(
    async (account: string, _options, command: Command) => {
      const data = await unwrap(
        adminClient(command).GET('/admin/accounts/{account}/webhooks', { params: { path: { account } } }),
      );
      printRows(command, data, data.webhooks as Row[], [
        { header: 'ID', value: 'id' },
        { header: 'URL', value: 'url' },
        { header: 'DELIVERED', value: 'delivered' },
        { header: 'PENDING', value: 'pending' },
      ]);
    },
  );
  leaf(webhooks, 'remove <account> <id>', 'remove a webhook').action(
    async (account: string, id: string, _options, command: Command) => {
      await unwrap(
        adminClient(command).DELETE('/admin/accounts/{account}/webhooks/{id}', {
          params: { path: { account, id: number('id')(id) } },
        }),
      );
      done(command, null, `webhook ${id} removed`);
    },
  );
}
