// The operator API's view of the reverse DNS outbox: the PTR changes not yet on the DNS server
// (PDNS_API_URL), with their attempts and last error, so a DNS server that is down shows here.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { listPtrQueue, type PtrChange as DomainPtrChange } from '../../reverse-dns/reverse-dns.service.ts';
import { isoSeconds } from '../../platform/clock.ts';
import { responses, Timestamp } from '../v1_3/schemas.ts';
import { adminErrors, tags } from './format.ts';

const PtrChange = Type.Object({
  address: Type.String(),
  name: Type.Union([Type.String(), Type.Null()], { description: 'the PTR to publish; null: its removal' }),
  attempts: Type.Integer({ description: 'attempts so far (it is retried until it lands)' }),
  last_error: Type.Union([Type.String(), Type.Null()], { description: 'why the last attempt failed' }),
  queued: Timestamp,
  next_attempt: Timestamp,
});

function ptrChangeObject(change: DomainPtrChange): Static<typeof PtrChange> {
  return {
    address: change.address,
    name: change.name,
    attempts: change.attempts,
    last_error: change.lastError,
    queued: isoSeconds(change.queuedAt),
    next_attempt: isoSeconds(change.nextAttemptAt),
  };
}

export function reverseDnsRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/reverse-dns/queue',
    config: { access: 'operator' },
    schema: {
      tags,
      operationId: 'adminListReverseDnsQueue',
      summary: 'List reverse DNS changes not yet published',
      description:
        'The PTR changes waiting for the DNS server (PDNS_API_URL), oldest first (at most 1000); always empty when none is configured.',
      response: responses({ 200: Type.Object({ changes: Type.Array(PtrChange) }) }, adminErrors),
    },
    handler: async () => ({ changes: (await listPtrQueue(ctx)).map(ptrChangeObject) }),
  });
}
