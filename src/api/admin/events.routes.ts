// The operator API's events: the numbered feed of every resource change (a page after a
// sequence number, or a Server-Sent Events stream), and per-account webhooks with the state of
// their deliveries. See src/events/.

import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { listEvents } from '../../events/event.service.ts';
import {
  addWebhook,
  listWebhooks,
  removeWebhook,
  type Webhook as DomainWebhook,
} from '../../events/webhook-admin.service.ts';
import type { NubisEvent as DomainEvent } from '../../events/event.ts';
import { eventPayload } from '../../events/event-payload.ts';
import { isoOrNull, isoSeconds } from '../../platform/clock.ts';
import { responses, Timestamp } from '../v1_3/schemas.ts';
import { adminErrors, tags } from './format.ts';

const maxId = 2_147_483_647;

const NubisEvent = Type.Object({
  id: Type.Integer({ description: 'sequence number' }),
  type: Type.String({ examples: ['server.created', 'server.transition', 'server.power', 'invoice_item.opened'] }),
  occurred: Timestamp,
  account: Type.Union([Type.Integer(), Type.Null()]),
  resource: Type.Object({ type: Type.String(), uuid: Type.String() }),
  data: Type.Record(Type.String(), Type.Unknown()),
  cause: Type.Union([Type.String({ enum: ['customer', 'operator', 'sweep', 'engine'] }), Type.Null()], {
    description: 'who or what brought it about; null on events recorded before Nubis kept causes',
  }),
});
const Webhook = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  created: Timestamp,
  delivered: Type.Integer(),
  pending: Type.Integer(),
  deliveries: Type.Array(
    Type.Object({
      id: Type.Integer(),
      event: Type.Integer(),
      delivered: Type.Union([Timestamp, Type.Null()]),
      attempts: Type.Integer(),
      next_attempt: Type.Union([Timestamp, Type.Null()]),
      last_error: Type.Union([Type.String(), Type.Null()]),
    }),
    { description: 'the 50 newest' },
  ),
});
/** The feed and the stream send the webhooks' body (event-payload.ts); this schema types it. */
const eventObject: (event: DomainEvent) => Static<typeof NubisEvent> = eventPayload;

function webhookObject(webhook: DomainWebhook): Static<typeof Webhook> {
  return {
    id: webhook.id,
    url: webhook.url,
    created: isoSeconds(webhook.createdAt),
    delivered: webhook.delivered,
    pending: webhook.pending,
    deliveries: webhook.deliveries.map((delivery) => ({
      id: delivery.id,
      event: delivery.eventId,
      delivered: isoOrNull(delivery.deliveredAt),
      attempts: delivery.attempts,
      next_attempt: isoOrNull(delivery.nextAttemptAt),
      last_error: delivery.lastError,
    })),
  };
}

const AccountRef = Type.Object({
  account: Type.String({ minLength: 1, maxLength: 254, description: 'id, uuid or e-mail' }),
});
const EventQuery = Type.Object({
  after: Type.Optional(Type.Integer({ minimum: 0, maximum: maxId, description: 'events after this sequence number' })),
  account: Type.Optional(Type.Integer({ minimum: 1, maximum: maxId })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
});

export function eventRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/events',
    config: { access: 'operator' },
    schema: {
      tags,
      operationId: 'adminListEvents',
      summary: 'Resource changes after a sequence number, oldest first',
      description:
        "Every change of a resource's state (server created, transitions and power, snapshots, invoice items, funds), numbered; changes the clock brought about are stamped with the time they happened.",
      querystring: EventQuery,
      response: responses({ 200: Type.Object({ events: Type.Array(NubisEvent) }) }, adminErrors),
    },
    handler: async (request) => ({ events: (await listEvents(ctx, request.query)).map(eventObject) }),
  });

  app.route({
    method: 'GET',
    url: '/events/stream',
    config: { access: 'operator' },
    schema: {
      tags,
      operationId: 'adminStreamEvents',
      summary: 'Resource changes as Server-Sent Events',
      description:
        'Each event is sent with `id:` (its sequence number), `event:` (its type) and `data:` (the event as JSON). Resumes after `Last-Event-ID` or `after`; a comment every 15 s keeps proxies from closing it.',
      querystring: EventQuery,
      // Documented with its real media type: a stream of events, not a JSON string.
      response: {
        200: {
          description: 'the events as Server-Sent Events, for as long as the client listens',
          content: { 'text/event-stream': { schema: Type.String() } },
        },
      },
    },
    handler: async (request, reply) => {
      const header = Number(request.headers['last-event-id']);
      let after = Number.isSafeInteger(header) && header >= 0 ? header : (request.query.after ?? 0);
      // A stream as the payload, so the answer carries every header the app adds to others.
      const out = new PassThrough();
      let open = true;
      request.raw.on('close', () => {
        open = false;
        out.end();
      });
      void (async () => {
        let quietSince = Date.now();
        while (open) {
          const events = await listEvents(ctx, { after, account: request.query.account, limit: 500 }).catch(() => []);
          for (const event of events) {
            out.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(eventObject(event))}\n\n`);
            after = event.id;
          }
          if (events.length) quietSince = Date.now();
          else if (Date.now() - quietSince > 15_000) {
            out.write(': keep-alive\n\n');
            quietSince = Date.now();
          }
          if (events.length < 500) await sleep(500);
        }
      })();
      out.write(': stream of events\n\n');
      return reply.type('text/event-stream; charset=utf-8').send(out as unknown as string);
    },
  });

  app.route({
    method: 'POST',
    url: '/accounts/:account/webhooks',
    config: { access: 'operator' },
    schema: {
      tags,
      operationId: 'adminAddWebhook',
      summary: "Deliver the account's events to a URL",
      description:
        'Each event is POSTed as JSON with `Nubis-Event`, `Nubis-Delivery` and `Nubis-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the secret>`; any 2xx acknowledges it. Deliveries are in order and retried with back-off (2 s doubling to 5 min) until acknowledged.',
      params: AccountRef,
      body: Type.Object({
        url: Type.String({ minLength: 1, maxLength: 2048, examples: ['https://hooks.example.com/nubis'] }),
        secret: Type.String({ minLength: 16, maxLength: 256, description: 'the signing secret (kept sealed)' }),
      }),
      response: responses({ 201: Webhook }, adminErrors),
    },
    handler: async (request, reply) => {
      reply.code(201);
      return webhookObject(await addWebhook(ctx, request.params.account, request.body));
    },
  });

  app.route({
    method: 'GET',
    url: '/accounts/:account/webhooks',
    config: { access: 'operator' },
    schema: {
      tags,
      operationId: 'adminListWebhooks',
      summary: "The account's webhooks with the state of their deliveries",
      description:
        'For each webhook: how many events were delivered and how many wait, and the newest deliveries with their attempts and last error.',
      params: AccountRef,
      response: responses({ 200: Type.Object({ webhooks: Type.Array(Webhook) }) }, adminErrors),
    },
    handler: async (request) => ({
      webhooks: (await listWebhooks(ctx, request.params.account)).map(webhookObject),
    }),
  });

  app.route({
    method: 'DELETE',
    url: '/accounts/:account/webhooks/:id',
    config: { access: 'operator' },
    schema: {
      tags,
      operationId: 'adminRemoveWebhook',
      summary: 'Remove a webhook (its undelivered events are dropped with it)',
      description: 'Events recorded afterwards are not delivered to it.',
      params: Type.Object({ ...AccountRef.properties, id: Type.Integer({ minimum: 1, maximum: maxId }) }),
      response: responses({ 204: Type.Null() }, adminErrors),
    },
    handler: async (request, reply) => {
      await removeWebhook(ctx, request.params.account, request.params.id);
      return reply.code(204).send(null);
    },
  });
}
