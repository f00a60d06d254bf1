// Power state, derived rather than pushed: a server shows the transition under way until its
// `action_until`, then the power it settles in. Also the spec's power transitions, in one table.

import { Conflict } from '../platform/errors.ts';
import { isoSeconds } from '../platform/clock.ts';

export type SettledPower = 'running' | 'stopped';

export type Transition =
  | 'provisioning'
  | 'booting'
  | 'stopping'
  | 'rebooting'
  | 'rebuilding'
  | 'reinstalling'
  | 'resizing'
  | 'restoring'
  | 'snapshotting';

export interface PowerFields {
  power: string;
  action: string | null;
  action_until: number | null;
}

export function transitionUnderWay(server: PowerFields, now: number): Transition | null {
  return server.action !== null && server.action_until !== null && now < server.action_until
    ? (server.action as Transition)
    : null;
}

/** The power a client sees now: the transition under way, else the settled state. */
export function shownPower(server: PowerFields, now: number): string {
  return transitionUnderWay(server, now) ?? server.power;
}

export function isProvisioning(server: PowerFields, now: number): boolean {
  return transitionUnderWay(server, now) === 'provisioning';
}

/** Every action but remove waits for the one under way: a machine does one thing at a time. */
export function requireIdle(server: PowerFields, now: number): void {
  const transition = transitionUnderWay(server, now);
  if (transition === null) return;
  const until = isoSeconds(server.action_until!);
  if (transition === 'provisioning')
    throw new Conflict(`the server is still provisioning until ${until}; try again once it is running`);
  throw new Conflict(`the server is busy ${transition} until ${until}; try again after`);
}

export type PowerCommand = 'start' | 'stop' | 'reboot';

export interface PowerOutcome {
  transition: Transition;
  settlesTo: SettledPower;
}

/**
 * The spec's power rows: start boots a stopped server, stop powers a running one off, reboot
 * restarts a running server and starts one that is not running. Anything else is refused.
 */
export function powerOutcome(command: PowerCommand, server: PowerFields, now: number): PowerOutcome {
  requireIdle(server, now);
  const running = server.power === 'running';
  switch (command) {
    case 'start':
      if (running) throw new Conflict('the server is already running');
      return { transition: 'booting', settlesTo: 'running' };
    case 'stop':
      if (!running) throw new Conflict('the server is already stopped');
      return { transition: 'stopping', settlesTo: 'stopped' };
    case 'reboot':
      return running
        ? { transition: 'rebooting', settlesTo: 'running' }
        : { transition: 'booting', settlesTo: 'running' };
  }
}
