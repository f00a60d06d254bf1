// v1.3 tokens: list, create, rename, remove.

import { Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import { createToken, listTokens, removeToken, renameToken } from '../../tokens/token.service.ts';
import { success } from './format.ts';
import { authErrors, IdOrUuid, NullableTimestamp, responses, SuccessObject, Timestamp } from './schemas.ts';

const tags = ['v1.3 tokens'];
const Name = Type.String({ minLength: 1, maxLength: 100 });

export function tokenRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/account/token_list',
    config: { access: 'account' },
    schema: {
      tags,
      summary: "The account's tokens, each shown in full (auth_token); `id` is an extension",
      response: responses(
        {
          200: Type.Object({
            tokens: Type.Array(
              Type.Object({
                id: Type.Integer(),
                uuid: Type.String(),
                name: Type.String(),
                auth_token: Type.String(),
                created: Timestamp,
                last_used: NullableTimestamp,
              }),
            ),
          }),
        },
        [401, 429],
      ),
    },
    handler: async (request) => ({ tokens: await listTokens(ctx, actorOf(request)) }),
  });

  app.route({
    method: 'POST',
    url: '/account/token_create',
    config: { access: 'account' },
    schema: {
      tags,
      summary: 'Create a token (allowed before activation; 403 for a blocked account or without the tokens permission)',
      body: Type.Object({ name: Name }),
      response: responses(
        { 201: Type.Object({ uuid: Type.String(), name: Type.String(), token: Type.String(), created: Timestamp }) },
        authErrors,
      ),
    },
    handler: async (request, reply) => {
      reply.code(201);
      return createToken(ctx, actorOf(request), request.body.name);
    },
  });

  app.route({
    method: 'PATCH',
    url: '/account/token_rename',
    config: { access: 'account' },
    schema: {
      tags,
      summary: 'Rename a token, addressed by uuid or id',
      body: Type.Object({ uuid: IdOrUuid, name: Name }),
      response: responses({ 202: SuccessObject }, [...authErrors, 404]),
    },
    handler: async (request, reply) => {
      await renameToken(ctx, actorOf(request), String(request.body.uuid), request.body.name);
      reply.code(202);
      return success(202);
    },
  });

  app.route({
    method: 'DELETE',
    url: '/account/token_remove/:token_id',
    config: { access: 'account' },
    schema: {
      tags,
      summary: 'Remove a token; removing the calling token logs the caller out',
      params: Type.Object({ token_id: Type.String({ maxLength: 64 }) }),
      response: responses({ 204: Type.Null() }, [400, 401, 403, 404, 429]),
    },
    handler: async (request, reply) => {
      await removeToken(ctx, actorOf(request), request.params.token_id);
      return reply.code(204).send(null);
    },
  });
}
