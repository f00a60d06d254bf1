// `nubis invoice`: invoice items, their sums and the monthly invoice documents, through the SDK.

import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { unwrap } from '@nubis/sdk';
import { type CommandKit, number, type Row } from '../command-kit.ts';
import { details } from '../output.ts';

export function addInvoiceCommands(program: Command, kit: CommandKit): void {
  const { group, leaf, client, print, printRows, done } = kit;
  const invoice = group(program, 'invoice', 'invoice items');
  leaf(invoice, 'list', 'list invoice items, newest first')
    .option('--start <n>', 'skip this many items', number('--start'), 0)
    .action(async (options, command: Command) => {
      const data = await unwrap(
        client(command).GET('/v1.3/invoice/list', { params: { query: { start_id: options.start } } }),
      );
      printRows(command, data, data.invoices as Row[], [
        { header: 'TYPE', value: 'resource_type' },
        { header: 'PER_HOUR', value: 'amount_hr' },
        { header: 'PER_MONTH', value: 'amount_mo' },
        { header: 'USAGE', value: 'usage' },
        { header: 'ACTIVE', value: 'active' },
        { header: 'CREATED', value: 'ts_created' },
      ]);
    });
  leaf(invoice, 'sum', 'charges by resource type over a period')
    .option('--from <time>', 'start (YYYY-MM-DDTHH:MM:SSZ)')
    .option('--to <time>', 'end (YYYY-MM-DDTHH:MM:SSZ)')
    .action(async (options, command: Command) => {
      const data = await unwrap(
        client(command).POST('/v1.3/invoice/sum', {
          body: { ...(options.from ? { from: options.from } : {}), ...(options.to ? { to: options.to } : {}) } as never,
        }),
      );
      print(command, data, () => details(data as Row));
    });
  leaf(invoice, 'documents', 'the monthly invoice documents, newest first').action(
    async (_options, command: Command) => {
      const data = await unwrap(client(command).GET('/v1.3/document/list'));
      printRows(command, data, data.documents as unknown as Row[], [
        { header: 'ID', value: 'id' },
        { header: 'NUMBER', value: 'number' },
        { header: 'MONTH', value: 'period' },
        { header: 'USAGE', value: 'usage' },
        { header: 'PAYMENTS', value: 'payments' },
        { header: 'VAT', value: 'tax' },
        { header: 'BALANCE', value: 'closing_balance' },
      ]);
    },
  );
  leaf(invoice, 'download <id>', "save an invoice document's PDF")
    .option('-f, --file <path>', 'where to save it (default: its own name, invoice-<number>-<month>.pdf)')
    .action(async (id: string, options, command: Command) => {
      const answer = client(command).GET('/v1.3/document/download/{id}', {
        params: { path: { id } },
        parseAs: 'arrayBuffer',
      });
      const pdf = await unwrap(answer);
      // The name Nubis gives the document (as the console and the mail do): one name everywhere.
      const named = /filename="([^"/\\]+)"/.exec((await answer).response.headers.get('content-disposition') ?? '')?.[1];
      const file = options.file ?? named ?? `invoice-${id}.pdf`;
      writeFileSync(file, Buffer.from(pdf as ArrayBuffer));
      done(command, { file }, `saved ${file}`);
    });
}
