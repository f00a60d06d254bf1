// Legacy v1 reserved IPs: the floating IPs of v1.3 under their legacy names. A reserved IP is
// named by its address (IP), as the list shows it, or by its ID.

import { Type } from 'typebox';
import type { Actor, Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import { Forbidden, LimitReached } from '../../platform/errors.ts';
import { parseRef } from '../../platform/ids.ts';
import {
  attachFloatingIp,
  createFloatingIp,
  detachFloatingIp,
  findFloatingIpByAddress,
  listFloatingIps,
  removeFloatingIp,
} from '../../floating-ips/floating-ip.service.ts';
import { envelope, withLegacyFields } from './format.ts';
import { authErrors, changeErrors, formBody, Id, responses, StatusEnvelope, tags } from './schemas.ts';
import { keyed, Keyed, LegacyReservedIp, toLegacyReservedIp } from './shapes.ts';

const IpField = Type.String({
  minLength: 1,
  maxLength: 64,
  description: "the address as listed in IP (an IPv6 block with or without /64), or the reserved IP's ID",
});
const Attachment = Type.Object({ IP: IpField, SUBID: Id });
/** Service field → form field, for the 400s of attach, detach and remove. */
const attachmentFields = { ip_id: 'IP', server_id: 'SUBID' };

/** The reference the services take for the IP field: the ID or uuid as given, or the ID behind an address. */
async function ipRef(ctx: Platform, actor: Actor, value: string): Promise<string | number> {
  return parseRef(value) ? value : (await findFloatingIpByAddress(ctx, actor, value)).id;
}

export function reservedIpRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/reservedip/list',
    config: { access: 'account' },
    schema: {
      operationId: 'legacyListReservedIps',
      summary: 'List reserved IPs (legacy)',
      description: "The account's reserved IPs (v1.3 floating IPs).",
      tags,
      response: responses({ 200: Keyed(LegacyReservedIp) }, authErrors),
    },
    handler: async (request) =>
      keyed((await listFloatingIps(ctx, actorOf(request))).map(toLegacyReservedIp), (ip) => ip.ID),
  });

  app.route({
    method: 'POST',
    url: '/reservedip/create',
    config: { access: 'account' },
    schema: {
      operationId: 'legacyCreateReservedIp',
      summary: 'Reserve an IP (legacy)',
      description: 'Reserves an address in a location (billed hourly); the message is the new address.',
      tags,
      consumes: formBody,
      body: Type.Object({
        DCID: Id,
        ip_type: Type.Optional(
          Type.String({ enum: ['v4', 'v6'], description: 'v4 (the default) or v6 (a /64 block)' }),
        ),
      }),
      response: responses({ 200: StatusEnvelope }, [...changeErrors, 402, 404, 409]),
    },
    handler: async (request) => {
      const input = {
        regionId: request.body.DCID,
        ipVersion: request.body.ip_type === 'v6' ? (6 as const) : (4 as const),
      };
      try {
        const created = await withLegacyFields({ region_id: 'DCID', ip_version: 'ip_type' }, () =>
          createFloatingIp(ctx, actorOf(request), input),
        );
        return envelope(created.address, 202);
      } catch (error) {
        // The spec's own words for this refusal: more addresses come from support.
        if (error instanceof LimitReached && error.limit === 'floating_ips')
          throw new Forbidden(`Maximum number of IPs assigned (${error.maximum}): contact support to request more`);
        throw error;
      }
    },
  });

  app.route({
    method: 'POST',
    url: '/reservedip/remove',
    config: { access: 'account' },
    schema: {
      operationId: 'legacyRemoveReservedIp',
      summary: 'Release a reserved IP (legacy)',
      description: 'Releases an unattached reserved IP; billing stops.',
      tags,
      consumes: formBody,
      body: Type.Object({ IP: IpField }),
      response: responses({ 200: StatusEnvelope }, [...changeErrors, 404, 409]),
    },
    handler: async (request) => {
      const actor = actorOf(request);
      await withLegacyFields(attachmentFields, async () =>
        removeFloatingIp(ctx, actor, await ipRef(ctx, actor, request.body.IP)),
      );
      return envelope(`reserved IP ${request.body.IP} removed`, 204);
    },
  });

  for (const command of ['attach', 'detach'] as const) {
    const change = command === 'attach' ? attachFloatingIp : detachFloatingIp;
    app.route({
      method: 'POST',
      url: `/reservedip/${command}`,
      config: { access: 'account' },
      schema: {
        ...(command === 'attach'
          ? {
              operationId: 'legacyAttachReservedIp',
              summary: 'Attach a reserved IP (legacy)',
              description: 'Attaches the reserved IP to a server (SUBID) of the same location.',
            }
          : {
              operationId: 'legacyDetachReservedIp',
              summary: 'Detach a reserved IP (legacy)',
              description: 'Detaches the reserved IP from the server (SUBID) it is attached to.',
            }),
        tags,
        consumes: formBody,
        body: Attachment,
        response: responses({ 200: StatusEnvelope }, [...changeErrors, 404, 409]),
      },
      handler: async (request) => {
        const actor = actorOf(request);
        const { IP, SUBID } = request.body;
        await withLegacyFields(attachmentFields, async () =>
          change(ctx, actor, { ipId: await ipRef(ctx, actor, IP), serverId: SUBID }),
        );
        return envelope(
          `reserved IP ${IP} ${command === 'attach' ? 'attached to' : 'detached from'} server ${SUBID}`,
          201,
        );
      },
    });
  }
}
