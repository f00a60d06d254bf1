// Power state, derived rather than pushed: a server shows the transition under way until its
// `action_until`, then the power it settles in. The transition each change shows is declared with
// the changes (src/compute/machine-intents.ts).
//
// The spec's state table makes rebuild, reinstall and restore valid on any server, reboot valid
// on a running and on a non-running one (so on any), and rescue valid whether rescue is on or
// off. No action is refused for the transition under way: a new action supersedes it (the
// server shows the new transition from the request on and settles as the new action says).

import { conditionOf, parseConditions } from './machine-conditions.ts';

export type SettledPower = 'running' | 'stopped';

/** Every power state a client can see: settled, or a transition under way. */
export const POWER_STATES = [
  'provisioning',
  'running',
  'stopped',
  'booting',
  'stopping',
  'rebooting',
  'rebuilding',
  'reinstalling',
  'resizing',
  'restoring',
  'snapshotting',
  // Our addition (docs/decisions.md): the engine cannot be reached, so its power is not known.
  'unknown',
] as const;

/** Shown while the engine does not answer (the condition EngineReachable says since when). */
export const unknownPower = 'unknown';

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

/** The transition a new server shows (the sweeps look for it). */
export const provisioningTransition = 'provisioning' satisfies Transition;

export interface PowerFields {
  power: string;
  action: string | null;
  action_until: number | null;
  /** The engine's report (status), where there is one: it wins over the spec once no transition is under way. */
  observed_power?: string | null;
  conditions?: string | null;
}

export function transitionUnderWay(server: PowerFields, now: number): Transition | null {
  return server.action !== null && server.action_until !== null && now < server.action_until
    ? (server.action as Transition)
    : null;
}

/**
 * The power the server is in with no transition under way: the engine's truth where it reported
 * (its machine lost: stopped, nothing runs; the engine unreachable: unknown), else the spec.
 */
export function settledPower(server: PowerFields): string {
  if (server.conditions) {
    const conditions = parseConditions(server.conditions);
    if (conditionOf(conditions, 'EngineReachable')?.status === 'false') return unknownPower;
    if (conditionOf(conditions, 'MachinePresent')?.status === 'false') return 'stopped';
  }
  return server.observed_power ?? server.power;
}

/** The power a client sees now: the transition under way, else the settled state. */
export function shownPower(server: PowerFields, now: number): string {
  return transitionUnderWay(server, now) ?? settledPower(server);
}

/**
 * The power the server is in, or will settle in once the transition under way ends: what a new
 * action starts from (a machine stopped outside Nubis can be started; one lost is not running).
 */
export function currentPower(server: PowerFields, now: number): SettledPower {
  const settled = settledPower(server);
  // While the engine is silent, the last power asked for is the best guess to act from.
  const power = transitionUnderWay(server, now) || settled === unknownPower ? server.power : settled;
  return power === 'running' ? 'running' : 'stopped';
}

export function isProvisioning(server: PowerFields, now: number): boolean {
  return transitionUnderWay(server, now) === provisioningTransition;
}

/** True when the server is powered off, or will be once the transition under way ends. */
export function settlesStopped(server: PowerFields, now: number): boolean {
  return currentPower(server, now) !== 'running';
}

export type PowerCommand = 'start' | 'stop' | 'reboot';
