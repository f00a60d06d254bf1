// Whether the server has a machine to act on: a lost one (the engine no longer has it) or one
// whose disk the engine gave up making has none, and the API answers 409 to what needs one
// (start, stop, reboot, rescue, resize, snapshot). The page disables those and says why.

import type { Server } from '../../api.ts';

/** The id of the line that says why: the disabled controls point at it (aria-describedby). */
export const noMachineReasonId = 'no-machine-reason';

/** Why the actions that need a machine are disabled, or null when the server has one. */
export function noMachine(server: Pick<Server, 'conditions'>): string | null {
  const present = server.conditions.find((c) => c.type === 'MachinePresent' && c.status === 'false');
  const needs = 'Start, stop, reboot, rescue mode, resize and snapshots: each needs a machine';
  if (present?.reason === 'InstanceMissing')
    return `${needs}: this one is lost. Restore a backup or snapshot, rebuild, reinstall or remove the server.`;
  if (present?.reason === 'CreateFailed')
    return `${needs}: this one was never made (the engine could not make its disk). Rebuild, reinstall, restore a snapshot or remove the server.`;
  return null;
}
