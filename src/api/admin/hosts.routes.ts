// The operator API's hosts: each as the engine reports it with the capacity its servers use, a
// drain for maintenance and its restore, and (emulator) a host made offline. The rules live in
// src/hosts/host.service.ts.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import {
  drainHost,
  type Host as DomainHost,
  hostFaults,
  listHosts,
  restoreHost,
  setHostFault,
} from '../../hosts/host.service.ts';
import { responses } from '../v1_3/schemas.ts';
import { adminErrors, tags } from './format.ts';

const Bytes = (description: string) => Type.Integer({ minimum: 0, description });

export const HostObject = Type.Object(
  {
    name: Type.String({
      description: "the engine's name for it (an LXD cluster member; a single engine's server name)",
    }),
    status: Type.String({
      enum: ['online', 'evacuated', 'offline'],
      description: 'online: takes machines; evacuated: drained, takes none; offline: the engine cannot reach it',
    }),
    message: Type.String({ description: "the engine's words for its status" }),
    groups: Type.Array(Type.String(), { description: 'cluster groups it is in (a region maps to one)' }),
    capacity: Type.Object({
      vcpus: Type.Integer({ minimum: 0 }),
      memory_bytes: Bytes('memory'),
      disk_bytes: Type.Union([Bytes('the storage pool'), Type.Null()], { description: 'null: not reported' }),
    }),
    used: Type.Object(
      {
        vcpus: Type.Integer({ minimum: 0 }),
        memory_bytes: Bytes('memory'),
        disk_bytes: Bytes('disk'),
      },
      { description: 'what the plans of the servers on it take' },
    ),
    servers: Type.Integer({ minimum: 0, description: 'servers whose machine the engine reports on it' }),
    failure: Type.Union([Type.String(), Type.Null()], {
      description:
        'the last drain or restore the engine gave up on here, with its reason (also a host.drain_failed or host.restore_failed event), until one succeeds; null otherwise',
    }),
  },
  { $id: 'AdminHost', description: 'a host (an engine cluster member) as the engine reports it' },
);

export function hostObject(host: DomainHost): Static<typeof HostObject> {
  return {
    name: host.name,
    status: host.status,
    message: host.message,
    groups: host.groups,
    capacity: {
      vcpus: host.capacity.vcpus,
      memory_bytes: host.capacity.memoryBytes,
      disk_bytes: host.capacity.diskBytes,
    },
    used: { vcpus: host.used.vcpus, memory_bytes: host.used.memoryBytes, disk_bytes: host.used.diskBytes },
    servers: host.servers,
    failure: host.failure,
  };
}

const HostName = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }),
});

const HostFaultBody = Type.Object({
  host: HostName.properties.name,
  fault: Type.String({
    enum: [...hostFaults],
    description:
      'host_offline: the host stops answering, as an engine reports a member lost: its servers show their machine lost (MachinePresent false, HostLost, power stopped), one server.lost event and mail each, until recovered or the fault is removed',
  }),
});

export function hostRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/hosts',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminListHosts',
      tags,
      summary: 'List the hosts',
      description:
        "Every host the compute engine reports (an LXD cluster's members; one for a single engine; SIM_HOSTS per region with the simulated driver), with its status, capacity, what its servers use and how many run there. Asked of the engine now; its last report when it does not answer.",
      response: responses({ 200: Type.Object({ hosts: Type.Array(HostObject) }) }, adminErrors),
    },
    handler: async () => ({ hosts: (await listHosts(ctx)).map(hostObject) }),
  });

  app.route({
    method: 'POST',
    url: '/hosts/:name/drain',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminDrainHost',
      tags,
      summary: 'Drain a host for maintenance',
      description:
        'The engine moves every machine off the host to others of its group (LXD evacuation: stop, move, start, keeping addresses and data), after the answer; each moved server gets a server.moved event (from, to) and the host shows evacuated. 409 when the host is offline or there is no other host.',
      params: HostName,
      response: responses({ 202: HostObject }, [...adminErrors, 409]),
    },
    handler: async (request, reply) => {
      const host = await drainHost(ctx, request.params.name);
      reply.code(202);
      return hostObject(host);
    },
  });

  app.route({
    method: 'POST',
    url: '/hosts/:name/restore',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminRestoreHost',
      tags,
      summary: 'Restore a drained host',
      description:
        'The host takes machines again, and those moved off it by its drain come back (each with a server.moved event), after the answer. 409 when the host is offline.',
      params: HostName,
      response: responses({ 202: HostObject }, [...adminErrors, 409]),
    },
    handler: async (request, reply) => {
      const host = await restoreHost(ctx, request.params.name);
      reply.code(202);
      return hostObject(host);
    },
  });

  app.route({
    method: 'POST',
    url: '/faults/hosts',
    config: { access: 'emulator' },
    schema: {
      operationId: 'adminAddHostFault',
      tags,
      summary: 'Make a host offline',
      description:
        'Emulator, simulated driver only (409 with a real engine, which reports its own hosts): the host shows offline and its servers lost, as a real engine would report them, so a client or operator can practise a recovery.',
      body: HostFaultBody,
      response: responses({ 201: HostObject }, [...adminErrors, 409]),
    },
    handler: async (request, reply) => {
      const host = await setHostFault(ctx, request.body.host, request.body.fault as (typeof hostFaults)[number]);
      reply.code(201);
      return hostObject(host);
    },
  });

  app.route({
    method: 'DELETE',
    url: '/faults/hosts/:name',
    config: { access: 'emulator' },
    schema: {
      operationId: 'adminRemoveHostFault',
      tags,
      summary: 'Bring a host back online',
      description:
        'Ends a host_offline fault: the host is online again, and the machines still on it (not recovered elsewhere meanwhile) are there again. 409 with a real engine.',
      params: HostName,
      response: responses({ 200: HostObject }, [...adminErrors, 409]),
    },
    handler: async (request) => hostObject(await setHostFault(ctx, request.params.name, null)),
  });
}
