// Server fixtures for black-box tests: order a server over HTTP, or deploy one (ordered, then the
// virtual clock moved until it finished provisioning).

import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { ServerRow } from '../../src/servers/server.table.ts';
import { batches } from '../../src/db/batches.ts';
import type { JsonBody, TestInstance } from './instance.ts';

export const standardServer = { hostname: 'web-1.example.com', label: 'web 1', region: 101, image: 1001, plan: 1 };

/** Seconds that cover every simulated transition at the default SIM_* timings. */
export const SETTLE_SECONDS = 600;

/**
 * Orders a server (`server/create` as `token`, `overrides` over the standard server): the create
 * answer, the server still provisioning. Time is not moved; `deployServer` waits it out.
 */
export async function orderServer(nubis: TestInstance, token: string, overrides: Record<string, unknown> = {}) {
  const created = await nubis.request('POST', '/v1.3/server/create', {
    token,
    body: { ...standardServer, ...overrides },
  });
  if (created.status !== 201)
    throw new Error(`server/create failed: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body as { id: number; uuid: string; [key: string]: JsonBody };
}

/** Orders a server and moves the virtual clock past every simulated transition: it is deployed. */
export async function deployServer(nubis: TestInstance, token: string, overrides: Record<string, unknown> = {}) {
  const created = await orderServer(nubis, token, overrides);
  await nubis.advance(SETTLE_SECONDS);
  return created;
}

/** An instance on the system clock with transitions of a second: time passes with no advance and no sweep. */
export const quickSystemClock = {
  CLOCK: 'system',
  SIM_PROVISION_SECONDS: '1',
  SIM_STOP_SECONDS: '1',
  SIM_BOOT_SECONDS: '1',
};

/**
 * On the system clock (no advance to wait on): reads server/info until the server shows `power`.
 * A read tells a transition that ended without recording its end, as a sweep would later.
 */
export async function untilPower(nubis: TestInstance, token: string, ref: string | number, power: string) {
  for (;;) {
    const info = await nubis.request('GET', `/v1.3/server/info/${ref}`, { token });
    if (info.status !== 200) throw new Error(`server/info failed: ${info.status} ${JSON.stringify(info.body)}`);
    if (info.body.power === power) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * On the system clock: a server that booted before a snapshot was taken, with the boot's end not
 * yet recorded (no sweep, no activity read since), so it is recorded after the snapshot (issue 39).
 */
export async function bootThenSnapshot(nubis: TestInstance, token: string, label: string, snapshot: string) {
  const created = await orderServer(nubis, token, { label });
  await untilPower(nubis, token, created.uuid, 'running');
  for (const [action, power] of [
    ['stop', 'stopped'],
    ['start', 'running'],
  ]) {
    const answer = await nubis.request('PATCH', `/v1.3/server/${action}`, { token, body: { server_id: created.id } });
    if (answer.status !== 202)
      throw new Error(`server/${action} failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    await untilPower(nubis, token, created.uuid, power);
  }
  const taken = await nubis.request('POST', '/v1.3/snapshot/create', {
    token,
    body: { name: snapshot, server_id: created.id },
  });
  if (taken.status !== 201) throw new Error(`snapshot/create failed: ${taken.status} ${JSON.stringify(taken.body)}`);
  return created;
}

export async function serverInfo(nubis: TestInstance, token: string, id: number | string) {
  const info = await nubis.request('GET', `/v1.3/server/info/${id}`, { token });
  if (info.status !== 200) throw new Error(`server/info failed: ${info.status} ${JSON.stringify(info.body)}`);
  return info.body;
}

/** A fresh ecdsa-sha2-nistp256 public key in OpenSSH's one-line format. */
export function ecdsaPublicKey(comment = 'test@example'): string {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  const sshString = (data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    return Buffer.concat([length, data]);
  };
  const blob = Buffer.concat([
    sshString(Buffer.from('ecdsa-sha2-nistp256')),
    sshString(Buffer.from('nistp256')),
    sshString(point),
  ]);
  return `ecdsa-sha2-nistp256 ${blob.toString('base64')} ${comment}`;
}

/**
 * A fleet without the API: `count` copies of a server's row, each with a new uuid (and `change`),
 * stored straight into the table in batches; answers their uuids. For what a fleet of tens of
 * thousands does to a sweep or a read, which creating them one by one would take minutes to show.
 */
export async function storeCopies(
  nubis: TestInstance,
  uuid: string,
  count: number,
  change: Partial<ServerRow> = {},
): Promise<string[]> {
  const db = nubis.running.ctx.db;
  const { id: _id, ...row } = await db
    .selectFrom('servers')
    .selectAll()
    .where('uuid', '=', uuid)
    .executeTakeFirstOrThrow();
  const uuids = Array.from({ length: count }, () => randomUUID());
  await db.transaction().execute(async (trx) => {
    for (const batch of batches(uuids, 500))
      await trx
        .insertInto('servers')
        .values(batch.map((copy) => ({ ...row, ...change, uuid: copy })))
        .execute();
  });
  return uuids;
}
