// Legacy v1 servers: list, create, remove, reboot (which starts a stopped server) and stop,
// over the same server services as v1.3.

import { Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf, asBuilt } from '../../http/api-app.ts';
import { createServer, listServers, removeServer } from '../../servers/server.service.ts';
import { powerServer } from '../../servers/server-actions.service.ts';
import { defaultVpc } from '../../vpcs/vpc.service.ts';
import { envelope, withLegacyFields } from './format.ts';
import { authErrors, changeErrors, formBody, Id, responses, StatusEnvelope, tags } from './schemas.ts';
import { keyed, Keyed, LegacyServer, toLegacyServer } from './shapes.ts';
import { CreateServerBody } from '../v1_3/server.routes.ts';

/** Server create's field → form field, for its 400s (`vpc` is what private_networking joins). */
const createFields = {
  region: 'DCID',
  image: 'OSID',
  plan: 'PLAN',
  script_url: 'cloud_init_script',
  vpc: 'private_networking',
};
const ServerRef = Type.Object({ SUBID: Id });

export function serverRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/server/list',
    config: { access: 'account' },
    serializerCompiler: asBuilt,
    schema: {
      operationId: 'legacyListServers',
      summary: 'List servers (legacy)',
      description: "The account's servers, whichever version created them, keyed by SUBID.",
      tags,
      response: responses({ 200: Keyed(LegacyServer) }, authErrors),
    },
    handler: async (request) => keyed((await listServers(ctx, actorOf(request))).map(toLegacyServer), (s) => s.ID),
  });

  app.route({
    method: 'POST',
    url: '/server/create',
    config: { access: 'account' },
    schema: {
      operationId: 'legacyCreateServer',
      summary: 'Deploy a server (legacy)',
      description:
        'Deploys a server (billing starts); the message is its SUBID. It is pending until provisioned, then active.',
      tags,
      consumes: formBody,
      body: Type.Object({
        label: Type.Optional(Type.String({ maxLength: 100, description: 'display name; the hostname when absent' })),
        hostname: CreateServerBody.properties.hostname,
        OSID: Id,
        DCID: Id,
        PLAN: Id,
        ipv6_networking: Type.Optional(Type.Boolean({ description: 'true or false' })),
        private_networking: Type.Optional(
          Type.Boolean({
            description: "true joins the account's private network (VPC) in the location, made on first use",
          }),
        ),
        ddos_protection: Type.Optional(Type.Boolean({ description: 'true or false' })),
        cloud_init_script: Type.Optional(
          Type.String({ maxLength: 2048, description: 'http(s) URL of a script run at first boot; empty for none' }),
        ),
      }),
      response: responses({ 200: StatusEnvelope }, [...changeErrors, 402, 404, 409]),
    },
    handler: async (request) => {
      const actor = actorOf(request);
      const form = request.body;
      const created = await withLegacyFields(createFields, async () =>
        createServer(ctx, actor, {
          hostname: form.hostname,
          label: form.label?.trim() ? form.label : form.hostname,
          region: form.DCID,
          image: form.OSID,
          plan: form.PLAN,
          ipv6_networking: form.ipv6_networking,
          ddos_protection: form.ddos_protection,
          script_url: form.cloud_init_script?.trim() ? form.cloud_init_script.trim() : undefined,
          vpc: form.private_networking ? (await defaultVpc(ctx, actor, form.DCID)).uuid : undefined,
        }),
      );
      return envelope(String(created.row.id), 202);
    },
  });

  app.route({
    method: 'POST',
    url: '/server/remove',
    config: { access: 'account' },
    schema: {
      operationId: 'legacyRemoveServer',
      summary: 'Remove a server (legacy)',
      description: 'Removes the server for good (billing stops); its snapshots stay.',
      tags,
      consumes: formBody,
      body: ServerRef,
      response: responses({ 200: StatusEnvelope }, [...changeErrors, 404]),
    },
    handler: async (request) => {
      await removeServer(ctx, actorOf(request), request.body.SUBID);
      return envelope(`server ${request.body.SUBID} removed`, 204);
    },
  });

  for (const command of ['reboot', 'stop'] as const) {
    app.route({
      method: 'POST',
      url: `/server/${command}`,
      config: { access: 'account' },
      schema: {
        ...(command === 'reboot'
          ? {
              operationId: 'legacyRebootServer',
              summary: 'Reboot a server (legacy)',
              description:
                'Restarts a running server, starts a stopped one; starting obeys the funds rule (402 when the balance is at or below zero).',
            }
          : {
              operationId: 'legacyStopServer',
              summary: 'Stop a server (legacy)',
              description: 'Powers the server off (a forced halt).',
            }),
        tags,
        consumes: formBody,
        body: ServerRef,
        response: responses(
          { 200: StatusEnvelope },
          command === 'reboot' ? [...changeErrors, 402, 404, 409] : [...changeErrors, 404, 409],
        ),
      },
      handler: async (request) => {
        await powerServer(ctx, actorOf(request), request.body.SUBID, command);
        return envelope(`server ${request.body.SUBID} ${command === 'reboot' ? 'is rebooting' : 'is stopping'}`, 201);
      },
    });
  }
}
