// The seam's door to a machine's console: the driver opens it (the LXD console, or the simulated
// driver's "no machine"); the console service decides who may, and relays it.

import type { Platform } from '../platform/context.ts';
import type { ConsoleOpening } from './compute-driver.ts';

/** The server's machine console, `cols` × `rows`, as the compute driver opens it. */
export function openConsole(
  ctx: Platform,
  serverUuid: string,
  size: { cols: number; rows: number },
): Promise<ConsoleOpening> {
  return ctx.compute.openConsole(serverUuid, size);
}
