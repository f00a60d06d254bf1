// A server's console for its owner (or the operator): who may open it, whether they still may
// while it is open (a removed token or a stopped server ends it), and the machine's console
// itself, opened through the compute driver (the simulated one has no machine, and so no console).

import type { Platform } from '../platform/context.ts';
import { Conflict, Forbidden, Unauthorized } from '../platform/errors.ts';
import { secretEquals } from '../platform/secrets.ts';
import { authenticate } from '../tokens/token.service.ts';
import { requirePermission } from '../accounts/permissions.ts';
import { findServer } from '../servers/server.service.ts';
import { operatorServerInfo } from '../servers/server-operator.service.ts';
import { shownPower } from '../compute/power-state.ts';
import type { MachineConsole } from '../compute/compute-driver.ts';
import { openConsole } from '../compute/machine-console.ts';
import { recordOperatorAction } from '../audit/audit.service.ts';

/** Who asks for a console, by the token they presented. */
export type ConsoleViewer = { kind: 'customer'; token: string } | { kind: 'operator'; token: string };

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
  if (power === 'stopped') throw new Conflict('the server is stopped: start it to use its console');
  return uuid;
}

/** Why an open console ends, as its viewer is told: the code and the reason. */
export interface ConsoleEnd {
  code: number;
  reason: string;
}

/** Null while the viewer may keep the console open; else why it ends (the token went, the account was blocked, the server stopped or went). */
export async function consoleEnds(ctx: Platform, viewer: ConsoleViewer, ref: string): Promise<ConsoleEnd | null> {
  try {
    await consoleServer(ctx, viewer, ref);
    return null;
  } catch (error) {
    if (error instanceof Unauthorized) return { code: 4401, reason: 'the token was removed' };
    if (error instanceof Forbidden) return { code: 4403, reason: error.message };
    if (error instanceof Error) return { code: 1000, reason: error.message };
    throw error;
  }
}

/** The machine's console, `cols` × `rows`, as the compute driver opens it; Conflict when there is none. */
export async function openMachineConsole(
  ctx: Platform,
  serverUuid: string,
  size: { cols: number; rows: number },
): Promise<MachineConsole> {
  const opening = await openConsole(ctx, serverUuid, size);
  if ('unavailable' in opening) throw new Conflict(opening.unavailable);
  return opening.console;
}

/** The operator opened a customer's console: the audit log keeps it, as it keeps the operator's changes. */
export async function auditOperatorConsole(ctx: Platform, client: string, ref: string, path: string): Promise<void> {
  await recordOperatorAction(ctx, {
    client,
    method: 'GET',
    call: `GET ${path}`,
    target: `server=${ref}`,
    status: 101,
    detail: { console: 'opened' },
  });
}
