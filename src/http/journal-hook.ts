// Feeds the request journal: customer requests (v1.3 and v1) with their parsed bodies and the
// answer as sent. Registered only when the journal is on, so it costs nothing otherwise.

import type { FastifyInstance } from 'fastify';
import type { Platform } from '../platform/context.ts';
import { journalEnabled, recordRequest } from '../journal/journal.ts';

const journaled = /^\/v1(\.3)?\//;
const payloads = new WeakMap<object, unknown>();

export function registerJournal(app: FastifyInstance, ctx: Platform): void {
  if (!journalEnabled(ctx)) return;
  app.addHook('onSend', async (request, _reply, payload) => {
    if (journaled.test(request.url)) payloads.set(request, payload);
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    if (!journaled.test(request.url)) return;
    recordRequest(ctx, {
      method: request.method,
      path: request.url.split('?', 1)[0],
      status: reply.statusCode,
      durationMs: reply.elapsedTime,
      accountId: request.actor?.accountId ?? null,
      requestId: request.id,
      requestBody: request.body,
      responsePayload: payloads.get(request),
    });
  });
}
