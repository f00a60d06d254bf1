// Row type of the operator audit log.

import type { Generated, Selectable } from 'kysely';

export interface OperatorAuditTable {
  id: Generated<number>;
  created_at: number;
  /** ADMIN_NAME, or `token:` and the first 12 hex digits of the ADMIN_TOKEN's SHA-256. */
  operator: string;
  /** The client address (TRUST_PROXY decides whether X-Forwarded-For is believed). */
  client: string;
  method: string;
  /** The route called, as declared: `POST /admin/accounts/:account/credit`. */
  call: string;
  /** The path parameters, `account=7`, or null for a call on no one thing. */
  target: string | null;
  /** The HTTP status answered: refused attempts are recorded too. */
  status: number;
  /** The request body as JSON (cut at 2000 characters), or null. */
  detail: string | null;
}

export type OperatorAuditRow = Selectable<OperatorAuditTable>;
