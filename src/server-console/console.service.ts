// A server's console for its owner (or the operator): who may open it, whether they still may
// while it is open (a removed token or a stopped server ends it), and the machine's console
// itself. With the simulated driver there is no machine, and so no console.

import type { Platform } from '../platform/context.ts';
import { Conflict, Forbidden, Unauthorized } from '../platform/errors.ts';
import { secretEquals } from '../platform/secrets.ts';
import { authenticate } from '../tokens/token.service.ts';
import { requirePermission } from '../accounts/permissions.ts';
import { findServer } from '../servers/server.service.ts';
import { operatorServerInfo } from '../servers/server-operator.service.ts';
import { shownPower } from '../servers/power-state.ts';
import type { MachineConsole } from '../compute/lxd/console.ts';

/** Who asks for a console, by the token they presented. */
export type ConsoleViewer = { kind: 'customer'; token: string } | { kind: 'operator'; token: string };

export const NO_MACHINE = 'there is no machine behind this server: the simulated driver runs none';

/** The server whose console `viewer` may open now (its uuid), or the domain error that says why not. */
export async function consoleServer(ctx: Platform, viewer: ConsoleViewer, ref: string): Promise<string> {
  let uuid: string;
  let power: string;
  if (viewer.kind === 'operator') {
    if (!ctx.config.adminToken || !secretEquals(viewer.token, ctx.config.adminToken))
      throw new Unauthorized('operator authentication required');
    const server = await operatorServerInfo(ctx, ref);
    uuid = server.uuid;
    power = server.power;
  } else {
    const actor = await authenticate(ctx, viewer.token);
    if (!actor) throw new Unauthorized();
    if (actor.blocked) throw new Forbidden('the account is blocked');
    requirePermission(actor, 'servers');
    const server = await findServer(ctx, ctx.db, actor.accountId, ref);
    uuid = server.uuid;
    power = shownPower(server, ctx.clock.now());
  }
  if (!ctx.compute.engine) throw new Conflict(NO_MACHINE);
  if (power === 'stopped') throw new Conflict('the server is stopped: start it to use its console');
  return uuid;
}

/** Null while the viewer may keep the console open; else why it ends (the token went, the server stopped or went). */
export async function consoleEnds(ctx: Platform, viewer: ConsoleViewer, ref: string): Promise<string | null> {
  try {
    await consoleServer(ctx, viewer, ref);
    return null;
  } catch (error) {
    if (error instanceof Unauthorized) return 'the token was removed';
    if (error instanceof Error) return error.message;
    throw error;
  }
}

/**
 * The machine's console, `cols` × `rows`. The LXD engine is the only one with machines today;
 * its client lives as long as the console.
 */
export async function openMachineConsole(
  ctx: Platform,
  serverUuid: string,
  size: { cols: number; rows: number },
): Promise<MachineConsole> {
  if (!ctx.compute.engine || ctx.config.computeDriver !== 'lxd') throw new Conflict(NO_MACHINE);
  // Loaded with the first console: a simulated Nubis never loads the LXD client.
  const [{ lxdClientFrom }, { openLxdConsole }] = await Promise.all([
    import('../compute/lxd/lxd-driver.ts'),
    import('../compute/lxd/console.ts'),
  ]);
  const client = lxdClientFrom(ctx.config);
  try {
    const machine = await openLxdConsole(client, serverUuid, size);
    if (!machine) throw new Conflict('the machine is not running');
    machine.onEnd(() => client.close());
    return machine;
  } catch (error) {
    client.close();
    throw error;
  }
}
