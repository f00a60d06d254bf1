// v1.3 floating IPs: list, create, attach, detach, remove.

import { type Static, Type } from 'typebox';
import { isoSeconds } from '../../platform/clock.ts';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import {
  attachFloatingIp,
  createFloatingIp,
  detachFloatingIp,
  listFloatingIps,
  type FloatingIp as DomainFloatingIp,
  removeFloatingIp,
} from '../../floating-ips/floating-ip.service.ts';
import { accepted } from './format.ts';
import { authErrors, IdOrUuid, PathRef, responses, SuccessObject, Timestamp } from './schemas.ts';

const tags = ['v1.3 floating IPs'];

const FloatingIp = Type.Object(
  {
    id: Type.Integer({ description: 'integer id (our addition: attach, detach and remove accept it)' }),
    uuid: Type.String(),
    region_id: Type.Integer({ description: 'region of the address (our addition)' }),
    server_id: Type.Union([Type.Integer(), Type.Null()], {
      description: 'integer id of the attached server, null when unattached',
    }),
    address: Type.String(),
    netmask: Type.String({ description: '255.255.255.255 for IPv4; the prefix length for IPv6' }),
    gateway: Type.String(),
    reverse: Type.Union([Type.String(), Type.Null()], { description: 'reverse DNS name, set through rdns/put' }),
    prefix: Type.Integer({ description: '32: one IPv4 address; 64: a whole IPv6 /64 block' }),
    created: Timestamp,
    type: Type.Literal('floating'),
  },
  { $id: 'FloatingIp', description: 'a floating IP (spec: Floating IP object)' },
);

/** A floating IP as /v1.3 shows it. */
export type FloatingIpObject = Static<typeof FloatingIp>;

const CreatedFloatingIp = Type.Object({ uuid: Type.String(), ip_address: Type.String(), created: Timestamp });

function floatingIpObject(ip: DomainFloatingIp): FloatingIpObject {
  return {
    id: ip.id,
    uuid: ip.uuid,
    region_id: ip.regionId,
    server_id: ip.serverId,
    address: ip.address,
    netmask: ip.netmask,
    gateway: ip.gateway,
    reverse: ip.reverse,
    prefix: ip.prefix,
    created: isoSeconds(ip.createdAt),
    type: 'floating',
  };
}

const Attachment = Type.Object({ server_id: IdOrUuid, ip_id: IdOrUuid });

export function floatingIpRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/floating_ip/list',
    config: { access: 'account' },
    schema: {
      operationId: 'listFloatingIps',
      summary: 'List floating IPs',
      description: 'Every floating IP of the account, attached or not.',
      tags,
      response: responses({ 200: Type.Object({ floating_ips: Type.Array(FloatingIp) }) }, [401, 429]),
    },
    handler: async (request) => ({
      floating_ips: (await listFloatingIps(ctx, actorOf(request))).map(floatingIpObject),
    }),
  });

  app.route({
    method: 'POST',
    url: '/floating_ip/create',
    config: { access: 'account' },
    schema: {
      operationId: 'createFloatingIp',
      summary: 'Create a floating IP',
      description:
        "Takes an IPv4 address or an IPv6 /64 block from the region's pool, billed hourly. 402 when the balance cannot pay for it; 409 when the pool is empty.",
      tags,
      body: Type.Object({
        region_id: IdOrUuid,
        ip_version: Type.Union([Type.Literal(4), Type.Literal(6)], { description: '4 or 6' }),
      }),
      response: responses({ 201: CreatedFloatingIp }, [...authErrors, 402, 404, 409]),
    },
    handler: async (request, reply) => {
      const created = await createFloatingIp(ctx, actorOf(request), {
        regionId: request.body.region_id,
        ipVersion: request.body.ip_version,
      });
      reply.code(201);
      return { uuid: created.uuid, ip_address: created.address, created: isoSeconds(created.createdAt) };
    },
  });

  app.route({
    method: 'PATCH',
    url: '/floating_ip/attach',
    config: { access: 'account' },
    schema: {
      operationId: 'attachFloatingIp',
      summary: 'Attach a floating IP to a server',
      description: "Attaches the floating IP to one of the account's servers in the same region.",
      tags,
      body: Attachment,
      response: responses({ 202: SuccessObject }, [...authErrors, 404, 409]),
    },
    handler: async (request, reply) => {
      await attachFloatingIp(ctx, actorOf(request), { serverId: request.body.server_id, ipId: request.body.ip_id });
      return accepted(reply);
    },
  });

  app.route({
    method: 'PATCH',
    url: '/floating_ip/detach',
    config: { access: 'account' },
    schema: {
      operationId: 'detachFloatingIp',
      summary: 'Detach a floating IP',
      description: 'Detaches the floating IP from the server it is attached to.',
      tags,
      body: Attachment,
      response: responses({ 202: SuccessObject }, [...authErrors, 404, 409]),
    },
    handler: async (request, reply) => {
      await detachFloatingIp(ctx, actorOf(request), { serverId: request.body.server_id, ipId: request.body.ip_id });
      return accepted(reply);
    },
  });

  app.route({
    method: 'DELETE',
    url: '/floating_ip/remove/:ip_id',
    config: { access: 'account' },
    schema: {
      operationId: 'removeFloatingIp',
      summary: 'Remove a floating IP',
      description:
        "Returns an unattached floating IP to the pool; billing stops. 409 while attached or within the region's removal hold.",
      tags,
      params: Type.Object({ ip_id: PathRef }),
      response: responses({ 204: Type.Null() }, [401, 403, 404, 409, 429]),
    },
    handler: async (request, reply) => {
      await removeFloatingIp(ctx, actorOf(request), request.params.ip_id);
      return reply.code(204).send(null);
    },
  });
}
