// A fault rule that makes a request's compute action fail: the request is answered as usual,
// but the action does not take — a new server settles stopped, any other action leaves the
// server as it was — and the reason is kept in the server's engine_error, as when the engine
// really fails (docs/decisions.md). Marked on the request's transaction, so the service code
// that records the action reads it without knowing about requests.

import type { Tx } from '../db/database.ts';

const marked = new WeakMap<Tx, number>();

/** Marks the transaction of a request that an operator's rule (its id) makes fail. */
export function markComputeFault(trx: Tx, ruleId: number | undefined): void {
  if (ruleId !== undefined) marked.set(trx, ruleId);
}

/** The reason to record when the transaction's compute action is to fail, else null. */
export function injectedComputeFailure(trx: Tx, action: string): string | null {
  const ruleId = marked.get(trx);
  return ruleId === undefined ? null : `${action} failed: injected by fault rule ${ruleId}`;
}
