// v1.3 reverse DNS (rdns/get, rdns/put) and server options (option/get, option/set). The two
// reads answer the stored value beside the success object: `rdns` (with `ip`), and `name`/`value`.

import { Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import { getOption, getReverse, setOption, setReverse } from '../../servers/server-settings.service.ts';
import { success } from './format.ts';
import { authErrors, IdOrUuid, responses, SuccessObject } from './schemas.ts';

const tags = ['v1.3 reverse DNS and options'];
const ServerPath = Type.Object({ server_id: Type.String({ maxLength: 64, description: 'integer id or uuid' }) });
const Ip = Type.String({
  maxLength: 45,
  description:
    "our addition: one of the server's addresses (public IPv4, IPv6, or an attached floating IP); default the public IPv4",
});
const errors = [...authErrors, 404];

export function rdnsOptionRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/rdns/get/:server_id',
    config: { access: 'account' },
    schema: {
      tags,
      summary: "Reverse DNS name of the server's address (202, as declared)",
      params: ServerPath,
      querystring: Type.Object({ ip: Type.Optional(Ip) }),
      response: responses(
        { 202: Type.Intersect([SuccessObject, Type.Object({ ip: Type.String(), rdns: Type.String() })]) },
        errors,
      ),
    },
    handler: async (request, reply) => {
      const record = await getReverse(ctx, actorOf(request), request.params.server_id, request.query.ip);
      reply.code(202);
      return { ...success(202), ...record };
    },
  });

  app.route({
    method: 'PUT',
    url: '/rdns/put',
    config: { access: 'account' },
    schema: {
      tags,
      body: Type.Object({
        server_id: IdOrUuid,
        rdns: Type.String({ maxLength: 254, description: 'RFC 1123 host name' }),
        ip: Type.Optional(Ip),
      }),
      response: responses({ 202: SuccessObject }, errors),
    },
    handler: async (request, reply) => {
      await setReverse(ctx, actorOf(request), request.body.server_id, request.body.rdns, request.body.ip);
      reply.code(202);
      return success(202);
    },
  });

  app.route({
    method: 'PUT',
    url: '/option/get/:server_id',
    config: { access: 'account' },
    schema: {
      tags,
      summary: "An option's value (its default when unset)",
      params: ServerPath,
      body: Type.Object({
        name: Type.String({
          maxLength: 64,
          description: 'bw_overage_policy or bw_overage_threshold (also bw_overage_treshold)',
        }),
      }),
      response: responses(
        { 200: Type.Intersect([SuccessObject, Type.Object({ name: Type.String(), value: Type.String() })]) },
        errors,
      ),
    },
    handler: async (request) => ({
      ...success(200),
      ...(await getOption(ctx, actorOf(request), request.params.server_id, request.body.name)),
    }),
  });

  app.route({
    method: 'PUT',
    url: '/option/set/:server_id',
    config: { access: 'account' },
    schema: {
      tags,
      summary: 'Set an option; the value null (text or JSON) unsets it',
      params: ServerPath,
      body: Type.Object({
        name: Type.String({ maxLength: 64 }),
        value: Type.Union([Type.Null(), Type.String({ maxLength: 64 }), Type.Number()]),
      }),
      response: responses({ 202: SuccessObject }, errors),
    },
    handler: async (request, reply) => {
      const value = request.body.value === null ? null : String(request.body.value);
      await setOption(ctx, actorOf(request), request.params.server_id, request.body.name, value);
      reply.code(202);
      return success(202);
    },
  });
}
