// `nubis account`: the account's profile, balance and limits, through the SDK.

import type { Command } from 'commander';
import { unwrap } from '@nubis/sdk';
import type { CommandKit } from '../command-kit.ts';
import { details } from '../output.ts';

export function addAccountCommands(program: Command, kit: CommandKit): void {
  const { group, leaf, client, print } = kit;
  const account = group(program, 'account', 'your account');
  leaf(account, 'info', "the account's profile, balance and limits").action(async (_options, command: Command) => {
    const data = await unwrap(client(command).GET('/v1.3/account/info'));
    print(command, data, () =>
      details({
        id: data.id,
        email: data.email,
        activated: data.activated,
        balance: data.balance,
        servers: `${data.servers.running} running, limit ${data.servers.limit}`,
        usage_per_hour: data.billing.usage,
        duedate: data.billing.duedate,
      }),
    );
  });
}
