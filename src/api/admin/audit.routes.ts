// The operator audit log: every operator call that changes something (any method but GET and
// HEAD, refused ones included) is recorded before its answer is sent, and read at GET /admin/audit.

import { type Static, Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { secretEquals } from '../../platform/secrets.ts';
import { presentedToken } from '../../http/api-scope.ts';
import { type AuditEntry as DomainAuditEntry, listAudit, recordOperatorAction } from '../../audit/audit.service.ts';
import { isoSeconds } from '../../platform/clock.ts';
import { responses, Timestamp } from '../v1_3/schemas.ts';
import { MAX_ROW_ID } from '../../platform/ids.ts';
import { tags } from './format.ts';

const AuditEntry = Type.Object(
  {
    id: Type.Integer(),
    time: Timestamp,
    operator: Type.String({ description: 'ADMIN_NAME, or `token:` and 12 hex digits of the SHA-256 of ADMIN_TOKEN' }),
    client: Type.String({ description: 'the client address' }),
    method: Type.String(),
    call: Type.String({ description: 'the route called, e.g. `POST /admin/accounts/:account/credit`' }),
    target: Type.Union([Type.String(), Type.Null()], { description: 'the path parameters, e.g. `account=7`' }),
    status: Type.Integer({ description: 'the HTTP status answered' }),
    detail: Type.Union([Type.String(), Type.Null()], {
      description: 'the request body as JSON (cut at 2000 characters)',
    }),
  },
  { $id: 'AuditEntry', description: 'one operator action' },
);

function auditEntryObject(entry: DomainAuditEntry): Static<typeof AuditEntry> {
  return {
    id: entry.id,
    time: isoSeconds(entry.created_at),
    operator: entry.operator,
    client: entry.client,
    method: entry.method,
    call: entry.call,
    target: entry.target,
    status: entry.status,
    detail: entry.detail,
  };
}

/** Only calls made with the operator token count as operator actions (a wrong token is no one). */
function byOperator(ctx: Platform, request: FastifyRequest): boolean {
  const token = presentedToken(request.headers.authorization);
  return !!token && !!ctx.config.adminToken && secretEquals(token, ctx.config.adminToken);
}

function targetOf(params: unknown): string | null {
  if (!params || typeof params !== 'object') return null;
  const pairs = Object.entries(params as Record<string, unknown>).map(([key, value]) => `${key}=${String(value)}`);
  return pairs.length ? pairs.join(' ') : null;
}

export function operatorAuditRoutes(app: ApiApp, ctx: Platform): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method === 'GET' || request.method === 'HEAD' || !byOperator(ctx, request)) return payload;
    const route = request.routeOptions.url;
    try {
      await recordOperatorAction(ctx, {
        client: request.ip,
        method: request.method,
        call: `${request.method} ${route ?? request.url.split('?')[0]}`,
        target: targetOf(request.params),
        status: reply.statusCode,
        detail: request.body,
      });
    } catch (error) {
      request.log.error({ err: error }, 'the operator audit log could not be written');
    }
    return payload;
  });

  app.route({
    method: 'GET',
    url: '/audit',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminListAudit',
      tags,
      summary: 'List the operator audit log',
      description:
        'Every operator call that changes something (any method but GET), refused ones included, with who, from where, what and when. `call` keeps entries whose route contains the text; page back with `before` (the oldest id seen). A reset keeps the log.',
      querystring: Type.Object({
        call: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        // An id as its column holds it (32-bit on PostgreSQL).
        before: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ROW_ID })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
      }),
      response: responses(
        { 200: Type.Object({ entries: Type.Array(AuditEntry) }, { description: 'the entries, newest first' }) },
        [400, 401, 403],
      ),
    },
    handler: async (request) => ({ entries: (await listAudit(ctx, request.query)).map(auditEntryObject) }),
  });
}
