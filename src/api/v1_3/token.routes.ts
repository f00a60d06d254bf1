// v1.3 tokens: list, create, rename, remove.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import { isoOrNull, isoSeconds } from '../../platform/clock.ts';
import { createToken, listTokens, removeToken, renameToken, type Token } from '../../tokens/token.service.ts';
import { accepted } from './format.ts';
import { authErrors, IdOrUuid, NullableTimestamp, PathRef, responses, SuccessObject, Timestamp } from './schemas.ts';

const tags = ['v1.3 tokens'];
const Name = Type.String({ minLength: 1, maxLength: 100 });

const ListedToken = Type.Object({
  id: Type.Integer(),
  uuid: Type.String(),
  name: Type.String(),
  auth_token: Type.String(),
  created: Timestamp,
  last_used: NullableTimestamp,
});
const CreatedToken = Type.Object({
  uuid: Type.String(),
  name: Type.String(),
  token: Type.String(),
  created: Timestamp,
});

function listedToken(token: Token): Static<typeof ListedToken> {
  return {
    id: token.id,
    uuid: token.uuid,
    name: token.name,
    auth_token: token.token,
    created: isoSeconds(token.createdAt),
    last_used: isoOrNull(token.lastUsedAt),
  };
}

function createdToken(token: Token): Static<typeof CreatedToken> {
  return { uuid: token.uuid, name: token.name, token: token.token, created: isoSeconds(token.createdAt) };
}

export function tokenRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/account/token_list',
    config: { access: 'account' },
    schema: {
      operationId: 'listTokens',
      summary: "List the account's tokens",
      description:
        'Every token of the account, each shown in full (`auth_token`); `id` is our addition (rename and remove accept it).',
      tags,
      response: responses(
        {
          200: Type.Object({ tokens: Type.Array(ListedToken) }),
        },
        [401, 429],
      ),
    },
    handler: async (request) => ({ tokens: (await listTokens(ctx, actorOf(request))).map(listedToken) }),
  });

  app.route({
    method: 'POST',
    url: '/account/token_create',
    config: { access: 'account' },
    schema: {
      operationId: 'createToken',
      summary: 'Create a token',
      description:
        'Creates another token of the account. Allowed before activation; 403 for a blocked account or without the tokens permission.',
      tags,
      body: Type.Object({ name: Name }),
      response: responses({ 201: CreatedToken }, authErrors),
    },
    handler: async (request, reply) => {
      reply.code(201);
      return createdToken(await createToken(ctx, actorOf(request), request.body.name));
    },
  });

  app.route({
    method: 'PATCH',
    url: '/account/token_rename',
    config: { access: 'account' },
    schema: {
      operationId: 'renameToken',
      summary: 'Rename a token',
      description: "Renames one of the account's tokens, addressed by uuid or integer id.",
      tags,
      body: Type.Object({ uuid: IdOrUuid, name: Name }),
      response: responses({ 202: SuccessObject }, [...authErrors, 404]),
    },
    handler: async (request, reply) => {
      await renameToken(ctx, actorOf(request), String(request.body.uuid), request.body.name);
      return accepted(reply);
    },
  });

  app.route({
    method: 'DELETE',
    url: '/account/token_remove/:token_id',
    config: { access: 'account' },
    schema: {
      operationId: 'removeToken',
      summary: 'Remove a token',
      description:
        'Removes a token for good; removing the calling token logs the caller out (its next request answers 401).',
      tags,
      params: Type.Object({ token_id: PathRef }),
      response: responses({ 204: Type.Null() }, [400, 401, 403, 404, 429]),
    },
    handler: async (request, reply) => {
      await removeToken(ctx, actorOf(request), request.params.token_id);
      return reply.code(204).send(null);
    },
  });
}
