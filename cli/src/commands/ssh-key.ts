// `nubis ssh-key`: the account's SSH public keys, through the SDK.

import type { Command } from 'commander';
import { unwrap } from '@nubis/sdk';
import { type CommandKit, ref, type Row } from '../command-kit.ts';

export function addSshKeyCommands(program: Command, kit: CommandKit): void {
  const { group, leaf, client, printRows, done } = kit;
  const sshKey = group(program, 'ssh-key', 'SSH keys');
  leaf(sshKey, 'list', 'list SSH keys').action(async (_options, command: Command) => {
    const data = await unwrap(client(command).GET('/v1.3/ssh_key/list'));
    printRows(command, data, data.ssh_keys as Row[], [
      { header: 'ID', value: 'id' },
      { header: 'NAME', value: 'name' },
      { header: 'FINGERPRINT', value: 'fingerprint' },
      { header: 'CREATED', value: 'created' },
    ]);
  });
  leaf(sshKey, 'create', 'add an SSH public key')
    .requiredOption('--name <name>', 'key name')
    .requiredOption('--public-key <key>', 'the key in OpenSSH one-line format')
    .action(async (options, command: Command) => {
      const data = await unwrap(
        client(command).POST('/v1.3/ssh_key/create', { body: { name: options.name, public_key: options.publicKey } }),
      );
      done(command, data, `SSH key ${data.name} (${data.fingerprint})`);
    });
  leaf(sshKey, 'rename <key>', 'rename an SSH key')
    .requiredOption('--name <name>', 'the new name')
    .action(async (id: string, options, command: Command) => {
      const key = ref(id);
      const answer = await unwrap(
        client(command).PATCH('/v1.3/ssh_key/rename', {
          body: { name: options.name, ...(typeof key === 'number' ? { id: key } : { uuid: key }) } as never,
        }),
      );
      done(command, answer, `SSH key ${id} renamed`);
    });
  leaf(sshKey, 'remove <key>', 'remove an SSH key').action(async (id: string, _options, command: Command) => {
    await unwrap(client(command).DELETE('/v1.3/ssh_key/remove/{ssh_key_id}', { params: { path: { ssh_key_id: id } } }));
    done(command, { removed: true }, `SSH key ${id} removed`);
  });
}
