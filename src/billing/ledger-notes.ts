// The texts the ledger stores beside its transactions: written once, for people (the customer's
// transaction list, the operator), in whatever words and precision suit them; never parsed back.

import { formatMoney } from '../platform/money.ts';

/** The note of hours a server's create paid up front. */
export function upfrontCommitNote(hours: number, server: { label: string; uuid: string }, micros: number): string {
  return `${hours} hours paid up front for server ${server.label} (${server.uuid}), ${formatMoney(micros, 6)} USD`;
}
