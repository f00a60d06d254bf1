// v1.3 VPCs: list, create, attach, detach, remove.

import { type Static, Type } from 'typebox';
import { isoSeconds } from '../../platform/clock.ts';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import { attachVpc, createVpc, detachVpc, listVpcs, removeVpc, type Vpc as DomainVpc } from '../../vpcs/vpc.service.ts';
import { accepted } from './format.ts';
import { authErrors, IdOrUuid, PathRef, responses, SuccessObject, Timestamp } from './schemas.ts';

const tags = ['v1.3 VPCs'];

const Vpc = Type.Object(
  {
    id: Type.Integer({ description: 'integer id (our addition: attach, detach and remove accept it)' }),
    uuid: Type.String(),
    servers: Type.Array(Type.String(), { description: 'uuids of the attached servers' }),
    name: Type.String(),
    region: Type.Integer({ description: 'region id' }),
    created: Timestamp,
  },
  { $id: 'Vpc', description: 'a private network (spec: VPC object)' },
);

function vpcObject(vpc: DomainVpc): Static<typeof Vpc> {
  return {
    id: vpc.id,
    uuid: vpc.uuid,
    servers: vpc.serverUuids,
    name: vpc.name,
    region: vpc.regionId,
    created: isoSeconds(vpc.createdAt),
  };
}

const Membership = Type.Object({ server_id: IdOrUuid, vpc_id: IdOrUuid });

export function vpcRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/vpc/list',
    config: { access: 'account' },
    schema: {
      operationId: 'listVpcs',
      summary: 'List VPCs',
      description: 'Every private network (VPC) of the account, with the uuids of its servers.',
      tags,
      response: responses({ 200: Type.Object({ vpcs: Type.Array(Vpc) }) }, [401, 429]),
    },
    handler: async (request) => ({ vpcs: (await listVpcs(ctx, actorOf(request))).map(vpcObject) }),
  });

  app.route({
    method: 'POST',
    url: '/vpc/create',
    config: { access: 'account' },
    schema: {
      operationId: 'createVpc',
      summary: 'Create a VPC',
      description: 'Creates a private network in a region, with its own /24 of 10.0.0.0/8.',
      tags,
      body: Type.Object({ region_id: IdOrUuid, name: Type.String({ minLength: 1, maxLength: 100 }) }),
      response: responses({ 201: Type.Object({ uuid: Type.String() }) }, [...authErrors, 402, 404, 409]),
    },
    handler: async (request, reply) => {
      const created = await createVpc(ctx, actorOf(request), {
        regionId: request.body.region_id,
        name: request.body.name,
      });
      reply.code(201);
      return created;
    },
  });

  app.route({
    method: 'PATCH',
    url: '/vpc/attach',
    config: { access: 'account' },
    schema: {
      operationId: 'attachVpc',
      summary: 'Attach a server to a VPC',
      description: "Attaches one of the account's servers in the VPC's region; the server gets a private address.",
      tags,
      body: Membership,
      response: responses({ 202: SuccessObject }, [...authErrors, 404, 409]),
    },
    handler: async (request, reply) => {
      await attachVpc(ctx, actorOf(request), { serverId: request.body.server_id, vpcId: request.body.vpc_id });
      return accepted(reply);
    },
  });

  app.route({
    method: 'PATCH',
    url: '/vpc/detach',
    config: { access: 'account' },
    schema: {
      operationId: 'detachVpc',
      summary: 'Detach a server from a VPC',
      description: 'Detaches the server from the VPC; its private address is released.',
      tags,
      body: Membership,
      response: responses({ 202: SuccessObject }, [...authErrors, 404, 409]),
    },
    handler: async (request, reply) => {
      await detachVpc(ctx, actorOf(request), { serverId: request.body.server_id, vpcId: request.body.vpc_id });
      return accepted(reply);
    },
  });

  app.route({
    method: 'DELETE',
    url: '/vpc/remove/:vpc_id',
    config: { access: 'account' },
    schema: {
      operationId: 'removeVpc',
      summary: 'Remove a VPC',
      description:
        "Removes a VPC that has no servers. 409 while servers are attached or within the region's removal hold.",
      tags,
      params: Type.Object({ vpc_id: PathRef }),
      response: responses({ 204: Type.Null() }, [401, 403, 404, 409, 429]),
    },
    handler: async (request, reply) => {
      await removeVpc(ctx, actorOf(request), request.params.vpc_id);
      return reply.code(204).send(null);
    },
  });
}
