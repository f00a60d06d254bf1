// v1.3 extension: a server's activity (the events Nubis recorded of it, with their cause), for
// the console's server page and anyone who wants a server's history without the operator feed.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import { ACTIVITY_LIMIT, serverActivity } from '../../servers/server-activity.service.ts';
import type { NubisEvent } from '../../events/event.ts';
import { isoSeconds } from '../../platform/clock.ts';
import { PathRef, responses, Timestamp } from './schemas.ts';

const ActivityEntry = Type.Object(
  {
    id: Type.Integer({ description: 'the event sequence number: a larger one happened later' }),
    type: Type.String({
      examples: ['server.created', 'server.transition', 'server.power', 'snapshot.created', 'backup.removed'],
    }),
    occurred: Timestamp,
    cause: Type.Union([Type.String({ enum: ['customer', 'operator', 'sweep', 'engine'] }), Type.Null()], {
      description:
        'who or what brought it about: the customer (a request), the operator, a sweep (out of funds, backups) or the compute engine (a transition ending); null before Nubis kept causes',
    }),
    resource: Type.Object({ type: Type.String({ enum: ['server', 'snapshot', 'backup'] }), uuid: Type.String() }),
    data: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'by type: server.transition {transition, settles}; server.power {power, after?, reason?, error?}; snapshot/backup.created {name, server}',
    }),
  },
  { $id: 'ServerActivityEntry' },
);

type ActivityResource = Static<typeof ActivityEntry>['resource'];

function activityEntryObject(event: NubisEvent): Static<typeof ActivityEntry> {
  return {
    id: event.id,
    type: event.type,
    occurred: isoSeconds(event.occurredAt),
    cause: event.cause,
    // A server's activity is told by the events of the server and its images only.
    resource: event.resource as ActivityResource,
    data: event.data,
  };
}

export function serverActivityRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/server/activity/:server_id',
    config: { access: 'account' },
    schema: {
      operationId: 'getServerActivity',
      summary: "A server's activity",
      description: `Extension (not in the spec): the server's history — created, power changes, rebuilds, resizes, rescue, snapshots and backups of it, out-of-funds stops — newest first, at most ${ACTIVITY_LIMIT}, each with its cause.`,
      tags: ['v1.3 servers'],
      params: Type.Object({ server_id: PathRef }),
      response: responses({ 200: Type.Object({ activity: Type.Array(ActivityEntry) }) }, [401, 404, 429]),
    },
    handler: async (request) => ({
      activity: (await serverActivity(ctx, actorOf(request), request.params.server_id)).map(activityEntryObject),
    }),
  });
}
