// The operator audit log: every operator call that changes something is recorded with who
// made it, from where, what it called on which target, what it answered and when. The
// operator token has no name of its own: ADMIN_NAME names the operator, else a digest prefix
// of the token tells two tokens apart without revealing either.

import { createHash } from 'node:crypto';
import type { Platform } from '../platform/context.ts';
import { auditRepository } from './audit.repository.ts';
import type { OperatorAuditRow } from './audit.table.ts';

export interface AuditEntryInput {
  client: string;
  method: string;
  call: string;
  target: string | null;
  status: number;
  detail: unknown;
}

/** One operator action as recorded (the operator API shapes it for the wire). */
export type AuditEntry = OperatorAuditRow;

const detailLimit = 2000;
const operatorNames = new WeakMap<Platform, string>();

/** Who the audit log says acted: ADMIN_NAME, or `token:` and 12 hex digits of the token's SHA-256. */
export function operatorName(ctx: Platform): string {
  let name = operatorNames.get(ctx);
  if (name === undefined) {
    name =
      ctx.config.adminName ??
      `token:${createHash('sha256')
        .update(ctx.config.adminToken ?? '')
        .digest('hex')
        .slice(0, 12)}`;
    operatorNames.set(ctx, name);
  }
  return name;
}

/**
 * Text as both databases store it: the log records refused requests too, whose parameters may
 * hold NUL (PostgreSQL refuses it), other control characters or unpaired surrogates; those are
 * written as `\uXXXX` escapes, as JSON.stringify writes them in `detail`.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it escapes
const unstorable = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]|[\ud800-\udfff]/gu;

function storable<T extends string | null>(text: T): T {
  if (text === null) return text;
  return text.replace(unstorable, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) as T;
}

export async function recordOperatorAction(ctx: Platform, input: AuditEntryInput): Promise<void> {
  let detail: string | null = null;
  if (input.detail !== undefined && input.detail !== null) {
    const text = JSON.stringify(input.detail);
    if (text !== '{}') detail = text.length > detailLimit ? `${text.slice(0, detailLimit - 1)}…` : text;
  }
  await auditRepository.insert(ctx.db, {
    createdAt: ctx.clock.now(),
    operator: operatorName(ctx),
    client: input.client,
    method: input.method,
    call: storable(input.call),
    target: storable(input.target),
    status: input.status,
    detail,
  });
}

export interface AuditQuery {
  /** Only entries older than this id (paging backwards). */
  before?: number;
  /** Only calls whose route contains this text (`credit`, `/admin/servers`). */
  call?: string;
  limit?: number;
}

/** The newest entries first, `limit` (default 100, at most 1000) at a time. */
export function listAudit(ctx: Platform, query: AuditQuery = {}): Promise<AuditEntry[]> {
  return auditRepository.newestFirst(ctx.db, { ...query, limit: Math.min(query.limit ?? 100, 1000) });
}
