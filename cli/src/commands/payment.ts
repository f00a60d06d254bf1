// `nubis payment`: adding funds — a card top-up on the processor's page, or a bank transfer —
// through the SDK.

import type { Command } from 'commander';
import { unwrap } from '@nubis/sdk';
import type { CommandKit, Row } from '../command-kit.ts';
import { details } from '../output.ts';

export function addPaymentCommands(program: Command, kit: CommandKit): void {
  const { group, leaf, client, print, done } = kit;
  const payment = group(program, 'payment', "add funds: by card (the processor's page) or by bank transfer");
  leaf(payment, 'options', 'how this account can pay').action(async (_options, command: Command) => {
    const data = await unwrap(client(command).GET('/v1.3/payment/options'));
    print(command, data, () => details(data as unknown as Row));
  });
  leaf(payment, 'card <amount>', "start a card top-up; prints the processor's page to pay on").action(
    async (amount: string, _options, command: Command) => {
      const data = await unwrap(client(command).POST('/v1.3/payment/checkout', { body: { amount } }));
      done(command, data, `pay ${amount} USD plus VAT at: ${data.checkout_url}`);
    },
  );
  leaf(payment, 'bank-transfer <amount>', 'announce a bank transfer; prints what to transfer where').action(
    async (amount: string, _options, command: Command) => {
      const data = await unwrap(client(command).POST('/v1.3/payment/bank_transfer', { body: { amount } }));
      print(command, data, () => details(data.instructions as unknown as Row));
    },
  );
}
