// v1.3 reverse DNS (rdns/get, rdns/put) and server options (option/get, option/set). The two
// reads answer the stored value beside the success object: `rdns` (with `ip`), and `name`/`value`.

import { Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import { getOption, getReverse, setOption, setReverse } from '../../servers/server-settings.service.ts';
import { accepted, success } from './format.ts';
import { authErrors, IdOrUuid, PathRef, responses, SuccessObject } from './schemas.ts';

const tags = ['v1.3 reverse DNS and options'];
const ServerPath = Type.Object({ server_id: PathRef });
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
      operationId: 'getReverseDns',
      summary: 'Show a reverse DNS name',
      description:
        "The reverse DNS name of one of the server's addresses (default its public IPv4). Answers 202, as the spec declares.",
      tags,
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
      operationId: 'setReverseDns',
      summary: 'Set a reverse DNS name',
      description: "Sets the reverse DNS name of one of the server's addresses (default its public IPv4).",
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
      return accepted(reply);
    },
  });

  app.route({
    method: 'PUT',
    url: '/option/get/:server_id',
    config: { access: 'account' },
    schema: {
      operationId: 'getServerOption',
      summary: 'Show a server option',
      description: 'The value of one option of the server (its default when unset).',
      tags,
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
      operationId: 'setServerOption',
      summary: 'Set a server option',
      description: 'Sets one option of the server; the value null (text or JSON) unsets it.',
      tags,
      params: ServerPath,
      body: Type.Object({
        name: Type.String({ maxLength: 64 }),
        // A number is stored as its text: only one written exactly (a safe integer's range).
        value: Type.Union([
          Type.Null(),
          Type.String({ maxLength: 64 }),
          Type.Number({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }),
        ]),
      }),
      response: responses({ 202: SuccessObject }, errors),
    },
    handler: async (request, reply) => {
      const value = request.body.value === null ? null : String(request.body.value);
      await setOption(ctx, actorOf(request), request.params.server_id, request.body.name, value);
      return accepted(reply);
    },
  });
}
