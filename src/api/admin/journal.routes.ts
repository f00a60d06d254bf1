// The operator API's request journal: this instance's most recent customer requests, with
// bodies (secrets masked). On when JOURNAL_SIZE is set. See src/journal/journal.ts.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { journal, type JournalEntry as DomainJournalEntry } from '../../journal/journal.ts';
import { isoSeconds } from '../../platform/clock.ts';
import { responses, Timestamp } from '../v1_3/schemas.ts';
import { tags } from './format.ts';

const JournalEntry = Type.Object({
  time: Timestamp,
  method: Type.String(),
  path: Type.String(),
  status: Type.Integer(),
  duration_ms: Type.Number(),
  account: Type.Union([Type.Integer(), Type.Null()], { description: 'the account id of the token, if any' }),
  request_id: Type.String({ description: 'the X-Request-Id of the answer' }),
  request_body: Type.Unknown({ description: 'as parsed, secrets masked' }),
  response_body: Type.Unknown({ description: 'as sent, secrets masked' }),
});

function journalEntryObject(entry: DomainJournalEntry): Static<typeof JournalEntry> {
  return {
    time: isoSeconds(entry.at),
    method: entry.method,
    path: entry.path,
    status: entry.status,
    duration_ms: entry.durationMs,
    account: entry.accountId,
    request_id: entry.requestId,
    request_body: entry.requestBody,
    response_body: entry.responseBody,
  };
}

export function journalRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/requests',
    config: { access: 'operator' },
    schema: {
      tags,
      operationId: 'adminListRequests',
      summary: 'The most recent customer requests of this instance, newest first',
      description:
        'Kept in a bounded ring of JOURNAL_SIZE entries per instance (off when 0, the default outside the emulator preset: 409). Passwords, tokens, secrets and activation values are masked.',
      querystring: Type.Object({
        account: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'account id' })),
        path: Type.Optional(Type.String({ maxLength: 200, description: 'a path, or a prefix ending in *' })),
        status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
      }),
      response: responses({ 200: Type.Object({ requests: Type.Array(JournalEntry) }) }, [400, 401, 403, 409]),
    },
    handler: async (request) => ({ requests: journal(ctx, request.query).map(journalEntryObject) }),
  });
}
