// v1.3 SSH keys: list, create, rename, remove.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import { isoSeconds } from '../../platform/clock.ts';
import {
  createSshKey,
  listSshKeys,
  removeSshKey,
  renameSshKey,
  type SshKey as DomainSshKey,
} from '../../ssh-keys/ssh-key.service.ts';
import { acceptedKeyTypes } from '../../ssh-keys/public-key.ts';
import { accepted } from './format.ts';
import { authErrors, IdOrUuid, PathRef, responses, SuccessObject, Timestamp } from './schemas.ts';

const tags = ['v1.3 SSH keys'];
const Name = Type.String({ minLength: 1, maxLength: 100 });

const SshKey = Type.Object(
  {
    id: Type.Integer({ description: 'integer id (our addition: rename and remove accept it)' }),
    uuid: Type.String(),
    name: Type.String(),
    data: Type.String({ description: 'the public key line' }),
    fingerprint: Type.String({
      description: 'OpenSSH SHA256 fingerprint, as ssh-keygen -l prints it',
      examples: ['SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8'],
    }),
    created: Timestamp,
  },
  { $id: 'SshKey', description: 'a stored public key (spec: SSH key object)' },
);

function sshKeyObject(key: DomainSshKey): Static<typeof SshKey> {
  return {
    id: key.id,
    uuid: key.uuid,
    name: key.name,
    data: key.publicKey,
    fingerprint: key.fingerprint,
    created: isoSeconds(key.createdAt),
  };
}

export function sshKeyRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/ssh_key/list',
    config: { access: 'account' },
    schema: {
      operationId: 'listSshKeys',
      summary: 'List SSH keys',
      description: 'Every public key stored on the account.',
      tags,
      response: responses({ 200: Type.Object({ ssh_keys: Type.Array(SshKey) }) }, [401, 429]),
    },
    handler: async (request) => ({ ssh_keys: (await listSshKeys(ctx, actorOf(request))).map(sshKeyObject) }),
  });

  app.route({
    method: 'POST',
    url: '/ssh_key/create',
    config: { access: 'account' },
    schema: {
      operationId: 'createSshKey',
      summary: 'Store an SSH key',
      description: `Stores a public key (${acceptedKeyTypes.join(', ')}) for new servers; RSA needs 2048 bits or more. 409 when the account already has this key.`,
      tags,
      body: Type.Object({
        name: Name,
        public_key: Type.String({
          minLength: 1,
          maxLength: 16384,
          description: 'OpenSSH public key line: <type> <base64> [comment]',
        }),
      }),
      response: responses(
        {
          201: Type.Object({
            uuid: Type.String(),
            name: Type.String(),
            fingerprint: Type.String(),
            created: Timestamp,
          }),
        },
        [...authErrors, 409],
      ),
    },
    handler: async (request, reply) => {
      const created = await createSshKey(ctx, actorOf(request), {
        name: request.body.name,
        publicKey: request.body.public_key,
      });
      reply.code(201);
      const { uuid, name, fingerprint, created: at } = sshKeyObject(created);
      return { uuid, name, fingerprint, created: at };
    },
  });

  app.route({
    method: 'PATCH',
    url: '/ssh_key/rename',
    config: { access: 'account' },
    schema: {
      operationId: 'renameSshKey',
      summary: 'Rename an SSH key',
      description: 'Renames a key named by uuid or integer id.',
      tags,
      body: Type.Object({ name: Name, uuid: Type.Optional(IdOrUuid), id: Type.Optional(IdOrUuid) }),
      response: responses({ 202: SuccessObject }, [400, 401, 404, 429]),
    },
    handler: async (request, reply) => {
      await renameSshKey(ctx, actorOf(request), request.body);
      return accepted(reply);
    },
  });

  app.route({
    method: 'DELETE',
    url: '/ssh_key/remove/:ssh_key_id',
    config: { access: 'account' },
    schema: {
      operationId: 'removeSshKey',
      summary: 'Remove an SSH key',
      description: 'Removes a stored key; servers created with it keep it installed.',
      tags,
      params: Type.Object({ ssh_key_id: PathRef }),
      response: responses({ 204: Type.Null() }, [401, 403, 404, 429]),
    },
    handler: async (request, reply) => {
      await removeSshKey(ctx, actorOf(request), request.params.ssh_key_id);
      return reply.code(204).send(null);
    },
  });
}
