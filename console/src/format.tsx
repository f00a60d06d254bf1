// How values read in the console: money, times (one format: 2026-11-28 02:20:07 UTC, the graphs'
// axes the same without seconds), durations, a transaction in a customer's words, the power badge
// and the marks of a machine's conditions.

import type { Server, Transaction } from './api.ts';

export function money(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined) return '–';
  const sign = value < 0 ? '−' : '';
  return `${sign}$${Math.abs(value).toFixed(digits)}`;
}

export function when(value: string | null | undefined): string {
  if (!value) return '–';
  return value.replace('T', ' ').replace('Z', ' UTC');
}

/** An instant (ms) as a graph's axis tells it: the date and the minute, in UTC, as `when` writes them. */
export function whenOnAxis(ms: number): { date: string; time: string } {
  const iso = new Date(ms).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 16) };
}

/** What a transaction is, in a customer's words (the API's `ptype` names the processor). */
export function transactionWords(t: Pick<Transaction, 'ptype' | 'pstatus' | 'amount'>): string {
  if (t.ptype === 'operator') return t.amount < 0 ? 'Debit' : 'Credit';
  if (t.ptype === 'commit') return 'Hours paid up front';
  if (t.ptype === 'bank') return 'Bank transfer';
  if (t.amount < 0) return t.pstatus === 'refunded' ? 'Refund' : 'Dispute';
  return 'Card payment';
}

const statusWords: Record<string, string> = {
  pending: 'Awaiting payment',
  completed: 'Done',
  failed: 'Not paid',
  expired: 'Expired: the checkout was left unpaid',
  refunded: 'Refunded',
};

/** A transaction's state in words. */
export function transactionStatus(pstatus: string): string {
  return statusWords[pstatus] ?? pstatus;
}

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return 'no usage: funds last indefinitely';
  if (seconds <= 0) return 'out of funds';
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  if (days > 0) return `${days} day${days === 1 ? '' : 's'} ${hours} h`;
  const minutes = Math.floor((seconds % 3600) / 60);
  return `${hours} h ${minutes} min`;
}

export function PowerBadge(props: { power: string }) {
  return <span class={`badge power-${props.power.replace(/[^a-z]/g, '')}`}>{props.power}</span>;
}

export type ServerCondition = Server['conditions'][number];

/** What a MachinePresent false says, by reason: lost (alone or with its host), never made, not made yet. */
const withoutMachine: Record<string, string> = {
  InstanceMissing: 'lost',
  HostLost: 'lost',
  CreateFailed: 'create failed',
};

/** A condition that calls for a mark beside the power: the machine lost or never made, the engine silent. */
export function conditionMark(condition: ServerCondition): string | null {
  if (condition.status !== 'false') return null;
  if (condition.type === 'MachinePresent') return withoutMachine[condition.reason] ?? 'no machine';
  if (condition.type === 'EngineReachable') return 'engine unreachable';
  return null;
}

/**
 * The marks of a server's conditions, each a badge with its reason beside it (the message on
 * hover): what the power badge alone cannot say (a lost machine, or one never made, shows as stopped).
 */
export function ConditionBadges(props: { conditions: readonly ServerCondition[] }) {
  return (
    <>
      {props.conditions.flatMap((condition) => {
        const mark = conditionMark(condition);
        return mark
          ? [
              <span key={condition.type} class="condition-mark" title={condition.message}>
                <span class="badge condition">{mark}</span> <span class="condition-reason">{condition.reason}</span>
              </span>,
            ]
          : [];
      })}
    </>
  );
}
