// v1.3 servers: list, info, create, remove, the rebuild and resize choices, and the actions
// (rebuild, resize, rescue, reinstall, start, stop, reboot).

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf, asBuilt } from '../../http/api-app.ts';
import {
  createServer,
  listServers,
  rebuildImages,
  removeServer,
  resizePlans,
  serverInfo,
  MAX_COMMIT_HOURS,
} from '../../servers/server.service.ts';
import {
  powerServer,
  rebuildServer,
  reinstallServer,
  resizeServer,
  setRescue,
} from '../../servers/server-actions.service.ts';
import type { ServerDetails } from '../../servers/server-details.ts';
import type { ScriptState } from '../../compute/script-outcome.ts';
import { isoSeconds } from '../../platform/clock.ts';
import { toCents } from '../../platform/money.ts';
import { accepted } from './format.ts';
import { authErrors, IdOrUuid, NullableTimestamp, PathRef, responses, SuccessObject, Timestamp } from './schemas.ts';
import { POWER_STATES } from '../../compute/power-state.ts';
import { type Condition, conditionTypes } from '../../compute/machine-conditions.ts';

const tags = ['v1.3 servers'];

const Interface = Type.Object(
  {
    address: Type.String(),
    netmask: Type.String({ description: 'dotted for IPv4, the prefix length for IPv6' }),
    gateway: Type.String(),
    type: Type.String({ enum: ['public', 'floating', 'private'] }),
    reverse: Type.Union([Type.String(), Type.Null()], {
      description:
        "reverse DNS name its PTR holds: the server's hostname (own and attached floating addresses) until set",
    }),
  },
  { $id: 'ServerInterface', description: 'one address of a server' },
);

export const ScriptOutcome = Type.Object(
  {
    state: Type.Union(
      [Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('not_run')],
      {
        description:
          'pending: the guest has not reported yet; succeeded: it ran and exited 0; failed: it could not be fetched or exited non-zero; not_run: this compute driver (simulated) runs no script',
      },
    ),
    stage: Type.Union([Type.Literal('fetch'), Type.Literal('run'), Type.Null()], {
      description: 'fetch: downloading script_url failed; run: the script ran; null until reported',
    }),
    exit_status: Type.Union([Type.Integer(), Type.Null()], {
      description: "the script's exit status (of the download at stage fetch)",
    }),
    output: Type.Union([Type.String(), Type.Null()], {
      description: 'the last 20 lines of its output (stdout and stderr), at most 4,000 characters',
    }),
    reported: NullableTimestamp,
  },
  {
    $id: 'ScriptOutcome',
    description:
      "our addition: the first-boot script's outcome, as the guest reported it (run once at first boot and after a reinstall or rebuild)",
  },
);

export const ServerCondition = Type.Object(
  {
    type: Type.String({
      enum: [...conditionTypes],
      description: 'EngineReachable, MachinePresent, DiskConsistent, or Degraded (true while another is not true)',
    }),
    status: Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Literal('unknown')]),
    reason: Type.String({ description: 'a CamelCase word (InstanceMissing, EngineUnreachable, …)' }),
    message: Type.String({ description: 'the same in words' }),
    since: Timestamp,
  },
  {
    $id: 'ServerCondition',
    description:
      "our addition: one condition of the server's machine as the engine last reported it, and since when its status holds",
  },
);

/** A condition shaped for the wire (the Server object and the operator's AdminServer). */
export function conditionObject(c: Condition): Static<typeof ServerCondition> {
  return { type: c.type, status: c.status, reason: c.reason, message: c.message, since: isoSeconds(c.since) };
}

export const ServerSchema = Type.Object(
  {
    id: Type.Integer({ description: 'integer id (our addition: every server_id accepts it)' }),
    uuid: Type.String(),
    name: Type.String({ description: 'the label' }),
    power: Type.String({
      $id: 'PowerState',
      enum: [...POWER_STATES],
      description:
        "provisioning, running, stopped, or a transition under way (shown until it ends); with a real engine the engine's truth: stopped while its machine is lost, unknown (our addition) while the engine cannot be reached",
    }),
    conditions: Type.Array(ServerCondition, {
      description:
        "our addition: the machine's conditions as the engine reports them (Kubernetes-style), empty until it first reports",
    }),
    created: Timestamp,
    price: Type.Number({ description: 'monthly price in USD of everything the server is billed for' }),
    iface: Type.Union(
      [Type.Object({ v4: Type.Array(Interface), v6: Type.Union([Type.Array(Interface), Type.Null()]) }), Type.Null()],
      { description: 'null while provisioning' },
    ),
    bandwidth: Type.Object({
      usage: Type.Number({ description: 'GB this calendar month' }),
      limit: Type.Number({ description: 'GB a month in the plan' }),
      point: Type.Number({
        description:
          'our addition: GB at which the bandwidth policy applies (bw_overage_threshold × limit); 0 with a limit of 0 (not metered)',
      }),
      applied: Type.Union([Type.Literal('power_off'), Type.Literal('throttle'), Type.Literal('charge'), Type.Null()], {
        description:
          'our addition: the bandwidth policy acting now (usage has reached point): power_off (the server is held off until the month ends or the threshold or policy changes), throttle (its NIC is rate-limited), charge (each GB past point is billed); null below point',
      }),
    }),
    info: Type.Object({
      features: Type.Array(Type.String(), {
        description: 'features on: ipv6, auto_backups, ddos_protection, private_network, rescue_mode',
      }),
      options: Type.Object({
        bw_overage_policy: Type.String(),
        bw_overage_tresgold: Type.Number({ description: "the spec's spelling; 1.0 is 100%" }),
        bw_overage_threshold: Type.Number({ description: 'the same value, spelled right' }),
      }),
      reg_country: Type.String(),
      reg_city: Type.String(),
      reg_id: Type.Integer(),
      img_id: Type.Integer(),
      plan_id: Type.Integer(),
      password: Type.String({ description: 'root (and admin) password' }),
      ipv6_enabled: Type.Boolean(),
      script_url: Type.Union([Type.String(), Type.Null()]),
      region: Type.String({ description: 'city of the region' }),
      image: Type.String({ description: 'image name' }),
      plan: Type.String({ description: 'plan name' }),
      price: Type.Number(),
      ddos_protection: Type.Boolean(),
      backup_enabled: Type.Boolean(),
      private_network: Type.Boolean(),
      hostname: Type.String({ description: 'our addition' }),
      ssh_key_id: Type.Union([Type.Integer(), Type.Null()], {
        description:
          'our addition: id of the SSH key given at create (see /ssh_key/list); null when none was given or it has been removed',
      }),
      script: Type.Union([ScriptOutcome, Type.Null()], {
        description: 'our addition: what the first-boot script (script_url) did; null without a script_url',
      }),
    }),
  },
  { $id: 'Server', description: 'a server (spec: Server object)' },
);

/** server/create's body (the legacy create shares its hostname). */
export const CreateServerBody = Type.Object(
  {
    hostname: Type.String({ minLength: 1, maxLength: 253, description: 'RFC 1123 host name' }),
    label: Type.String({ minLength: 1, maxLength: 100 }),
    region: IdOrUuid,
    image: IdOrUuid,
    plan: IdOrUuid,
    ddos_protection: Type.Optional(Type.Boolean()),
    auto_backups: Type.Optional(Type.Boolean()),
    ipv6_networking: Type.Optional(Type.Boolean()),
    ssh_key: Type.Optional(IdOrUuid),
    script_url: Type.Optional(Type.String({ maxLength: 2048 })),
    image_type: Type.Optional(Type.String({ enum: ['os', 'app', 'snapshot', 'iso'] })),
    commit: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_COMMIT_HOURS, description: 'hours paid up front' })),
    vpc: Type.Optional(IdOrUuid),
  },
  {
    examples: [
      { hostname: 'web-1.example.com', label: 'web 1', region: 101, image: 1001, plan: 1, ipv6_networking: true },
    ],
  },
);

type ServerObject = Static<typeof ServerSchema>;
type ScriptObject = Static<typeof ScriptOutcome>;

// The Server object, shaped from ServerDetails in one place (list, info and create all send it).
// Fields the spec leaves open are settled in the decisions table (docs/decisions.md).

/** The features a server has on, by name (the spec leaves their shape open). */
function featuresOf(details: ServerDetails): string[] {
  const { row } = details;
  const features: string[] = [];
  if (row.ipv6_enabled === 1) features.push('ipv6');
  if (row.backup_enabled === 1) features.push('auto_backups');
  if (row.ddos_protection === 1) features.push('ddos_protection');
  if (details.privateNetwork) features.push('private_network');
  if (row.rescue === 1) features.push('rescue_mode');
  return features;
}

// Servers listed in order were mostly created in runs within the same second: reuse its text.
let lastCreated = { second: -1, text: '' };
function createdText(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastCreated.second) lastCreated = { second, text: isoSeconds(ms) };
  return lastCreated.text;
}

// Shared: a script not reported yet shows the same object on every server.
const unreported = { stage: null, exit_status: null, output: null, reported: null };
const notRunObject: ScriptObject = Object.freeze({ state: 'not_run', ...unreported });
const pendingObject: ScriptObject = Object.freeze({ state: 'pending', ...unreported });

function scriptObject(script: ScriptState): ScriptObject {
  const { outcome } = script;
  if (!outcome) return script.state === 'not_run' ? notRunObject : pendingObject;
  return {
    state: script.state,
    stage: outcome.stage,
    exit_status: outcome.exitStatus,
    output: outcome.output,
    reported: isoSeconds(outcome.reportedAt),
  };
}

export function serverObject(details: ServerDetails): ServerObject {
  const { row, region, image, plan } = details;
  const price = toCents(details.monthlyPriceMicros);
  return {
    id: row.id,
    uuid: row.uuid,
    name: row.name,
    power: details.power,
    conditions: details.conditions.map(conditionObject),
    created: createdText(row.created_at),
    price,
    iface: details.interfaces,
    bandwidth: {
      usage: details.bandwidthUsageGb,
      limit: plan.bandwidth_gb,
      point: details.overage.pointGb,
      applied: details.overage.over ? details.overage.policy : null,
    },
    info: {
      features: featuresOf(details),
      options: {
        bw_overage_policy: details.options.bw_overage_policy,
        bw_overage_tresgold: details.options.bw_overage_threshold,
        bw_overage_threshold: details.options.bw_overage_threshold,
      },
      reg_country: region.country,
      reg_city: region.city,
      reg_id: region.id,
      img_id: image.id,
      plan_id: plan.id,
      password: details.rootPassword,
      ipv6_enabled: row.ipv6_enabled === 1,
      script_url: row.script_url,
      region: region.city,
      image: image.name,
      plan: plan.name,
      price,
      ddos_protection: row.ddos_protection === 1,
      backup_enabled: row.backup_enabled === 1,
      private_network: details.privateNetwork,
      hostname: row.hostname,
      ssh_key_id: row.ssh_key_id,
      script: details.script && scriptObject(details.script),
    },
  };
}

const ServerPath = Type.Object({ server_id: PathRef });
const ServerRef = Type.Object({ server_id: IdOrUuid });
const Choices = Type.Record(Type.String(), Type.Object({ uuid: Type.String(), name: Type.String() }));

/** The images or plans a server may change to, keyed by id. */
function choicesObject(choices: { id: number; uuid: string; name: string }[]): Static<typeof Choices> {
  return Object.fromEntries(choices.map((choice) => [String(choice.id), { uuid: choice.uuid, name: choice.name }]));
}
const actionErrors = [...authErrors, 404, 409];

export function serverRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/server/list',
    config: { access: 'account' },
    serializerCompiler: asBuilt,
    schema: {
      operationId: 'listServers',
      summary: 'List servers',
      description: 'Every server of the account, whichever API version created it.',
      tags,
      response: responses({ 200: Type.Object({ servers: Type.Array(ServerSchema) }) }, [401, 429]),
    },
    handler: async (request) => ({ servers: (await listServers(ctx, actorOf(request))).map(serverObject) }),
  });

  app.route({
    method: 'GET',
    url: '/server/info/:server_id',
    config: { access: 'account' },
    serializerCompiler: asBuilt,
    schema: {
      operationId: 'getServer',
      summary: 'Show a server',
      description: 'The Server object: power state, addresses, bandwidth, price and settings.',
      tags,
      params: ServerPath,
      response: responses({ 200: ServerSchema }, [401, 404, 429]),
    },
    handler: async (request) => serverObject(await serverInfo(ctx, actorOf(request), request.params.server_id)),
  });

  app.route({
    method: 'POST',
    url: '/server/create',
    config: { access: 'account' },
    serializerCompiler: asBuilt,
    schema: {
      operationId: 'createServer',
      summary: 'Deploy a server',
      description:
        "Deploys a server from a region, an image and a plan of the catalog (`/region/list`, `/image/list`, `/plan/list`). Answers 201 with `power` `provisioning` and `iface` null; billing starts. 402 when the balance cannot pay for it; 409 at the account's server limit.",
      tags,
      body: CreateServerBody,
      response: responses({ 201: ServerSchema }, [...authErrors, 402, 404, 409]),
    },
    handler: async (request, reply) => {
      const created = await createServer(ctx, actorOf(request), request.body);
      reply.code(201);
      return serverObject(created);
    },
  });

  app.route({
    method: 'DELETE',
    url: '/server/remove/:server_id',
    config: { access: 'account' },
    schema: {
      operationId: 'removeServer',
      summary: 'Remove a server',
      description: 'Removes the server for good; billing stops. Its snapshots stay.',
      tags,
      params: ServerPath,
      response: responses({ 204: Type.Null() }, [401, 403, 404, 429]),
    },
    handler: async (request, reply) => {
      await removeServer(ctx, actorOf(request), request.params.server_id);
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'GET',
    url: '/server/rebuild/:server_id',
    config: { access: 'account' },
    schema: {
      operationId: 'listRebuildImages',
      summary: 'List images a server can be rebuilt with',
      description: 'The images `POST /server/rebuild` accepts for this server, keyed by image id.',
      tags,
      params: ServerPath,
      response: responses({ 200: Type.Object({ images: Choices }) }, [401, 404, 429]),
    },
    handler: async (request) => ({
      images: choicesObject(await rebuildImages(ctx, actorOf(request), request.params.server_id)),
    }),
  });

  app.route({
    method: 'GET',
    url: '/server/resize/:server_id',
    config: { access: 'account' },
    schema: {
      operationId: 'listResizePlans',
      summary: 'List plans a server can be resized to',
      description: 'The plans `POST /server/resize` accepts for this server, keyed by plan id (disks never shrink).',
      tags,
      params: ServerPath,
      response: responses({ 200: Type.Object({ plans: Choices }) }, [401, 404, 429]),
    },
    handler: async (request) => ({
      plans: choicesObject(await resizePlans(ctx, actorOf(request), request.params.server_id)),
    }),
  });

  app.route({
    method: 'POST',
    url: '/server/rebuild',
    config: { access: 'account' },
    schema: {
      operationId: 'rebuildServer',
      summary: 'Rebuild a server with another image',
      description:
        'Overwrites the disk with another image; the server gets a new root password and shows `rebuilding` until done.',
      tags,
      body: Type.Object({ server_id: IdOrUuid, image_id: IdOrUuid }),
      response: responses({ 202: SuccessObject }, actionErrors),
    },
    handler: async (request, reply) => {
      await rebuildServer(ctx, actorOf(request), request.body.server_id, request.body.image_id);
      return accepted(reply);
    },
  });

  app.route({
    method: 'POST',
    url: '/server/resize',
    config: { access: 'account' },
    schema: {
      operationId: 'resizeServer',
      summary: 'Resize a server',
      description:
        'Moves the server to a plan with an equal or larger disk; a running server reboots. 402 when the balance cannot pay for the larger plan.',
      tags,
      body: Type.Object({ server_id: IdOrUuid, plan_id: IdOrUuid }),
      response: responses({ 202: SuccessObject }, [...actionErrors, 402]),
    },
    handler: async (request, reply) => {
      await resizeServer(ctx, actorOf(request), request.body.server_id, request.body.plan_id);
      return accepted(reply);
    },
  });

  app.route({
    method: 'POST',
    url: '/server/rescue',
    config: { access: 'account' },
    schema: {
      operationId: 'rescueServer',
      summary: 'Enter or leave rescue mode',
      description:
        'Reboots the server into the recovery image (`enable` true) or back onto its disk (`enable` false). Booting obeys the funds rule of start: 402 when the balance is at or below zero.',
      tags,
      body: Type.Object({ server_id: IdOrUuid, enable: Type.Boolean() }),
      response: responses({ 202: SuccessObject }, [...actionErrors, 402]),
    },
    handler: async (request, reply) => {
      await setRescue(ctx, actorOf(request), request.body.server_id, request.body.enable);
      return accepted(reply);
    },
  });

  app.route({
    method: 'POST',
    url: '/server/reinstall',
    config: { access: 'account' },
    schema: {
      operationId: 'reinstallServer',
      summary: 'Reinstall a server',
      description:
        "Reinstalls the server's own image; the server gets a new root password. `enable` is accepted and has no effect.",
      tags,
      body: Type.Object({ server_id: IdOrUuid, enable: Type.Optional(Type.Boolean()) }),
      response: responses({ 202: SuccessObject }, actionErrors),
    },
    handler: async (request, reply) => {
      await reinstallServer(ctx, actorOf(request), request.body.server_id);
      return accepted(reply);
    },
  });

  const power = {
    start: {
      operationId: 'startServer',
      summary: 'Start a server',
      description:
        'Boots a stopped server; it shows `booting`, then `running`. 402 when the balance is at or below zero.',
    },
    stop: {
      operationId: 'stopServer',
      summary: 'Stop a server',
      description: 'Powers the server off; it shows `stopping`, then `stopped`. Billing goes on while it exists.',
    },
    reboot: {
      operationId: 'rebootServer',
      summary: 'Reboot a server',
      description:
        'Restarts a running server (`rebooting`) or boots a stopped one (`booting`); booting obeys the funds rule of start (402).',
    },
  } as const;
  for (const command of ['start', 'stop', 'reboot'] as const) {
    app.route({
      method: 'PATCH',
      url: `/server/${command}`,
      config: { access: 'account' },
      schema: {
        ...power[command],
        tags,
        body: ServerRef,
        response: responses({ 202: SuccessObject }, command === 'stop' ? actionErrors : [...actionErrors, 402]),
      },
      handler: async (request, reply) => {
        await powerServer(ctx, actorOf(request), request.body.server_id, command);
        return accepted(reply);
      },
    });
  }
}
