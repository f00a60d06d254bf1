// `nubis token`: the account's API tokens, through the SDK.

import type { Command } from 'commander';
import { unwrap } from '@nubis/sdk';
import type { CommandKit, Row } from '../command-kit.ts';

export function addTokenCommands(program: Command, kit: CommandKit): void {
  const { group, leaf, client, printRows, done } = kit;
  const token = group(program, 'token', 'API tokens');
  leaf(token, 'list', "list the account's tokens").action(async (_options, command: Command) => {
    const data = await unwrap(client(command).GET('/v1.3/account/token_list'));
    printRows(command, data, data.tokens as Row[], [
      { header: 'ID', value: 'id' },
      { header: 'UUID', value: 'uuid' },
      { header: 'NAME', value: 'name' },
      { header: 'CREATED', value: 'created' },
      { header: 'LAST_USED', value: 'last_used' },
    ]);
  });
  leaf(token, 'create', 'create a token')
    .requiredOption('--name <name>', 'token name')
    .action(async (options, command: Command) => {
      const data = await unwrap(client(command).POST('/v1.3/account/token_create', { body: { name: options.name } }));
      done(command, data, data.token);
    });
  leaf(token, 'rename <uuid>', 'rename a token')
    .requiredOption('--name <name>', 'the new name')
    .action(async (uuid: string, options, command: Command) => {
      const answer = await unwrap(
        client(command).PATCH('/v1.3/account/token_rename', { body: { uuid, name: options.name } }),
      );
      done(command, answer, `token ${uuid} renamed`);
    });
  leaf(token, 'remove <token>', 'revoke a token (id or uuid)').action(
    async (id: string, _options, command: Command) => {
      await unwrap(
        client(command).DELETE('/v1.3/account/token_remove/{token_id}', { params: { path: { token_id: id } } }),
      );
      done(command, { removed: true }, `token ${id} removed`);
    },
  );
}
