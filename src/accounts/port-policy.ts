// Which ports an account's servers may not send to: the account's own list (set by the operator)
// or the deployment's default (BLOCKED_PORTS_TCP/UDP), less the SMTP ports when the operator
// lifted them (`smtp` true). Account info shows the result and the engine enforces the same.

import { Invalid } from '../platform/errors.ts';

export interface BlockedPorts {
  TCP: number[];
  UDP: number[];
}

/** The ports mail submission and relay use: what `smtp` true lifts (TCP only; SMTP has no UDP). */
export const smtpPorts: readonly number[] = [25, 465, 587];

function sorted(ports: Iterable<number>): number[] {
  return [...new Set(ports)].sort((a, b) => a - b);
}

/** The account's own list as stored (JSON), or null for the deployment's default. */
export function parseStoredPorts(stored: string | null): BlockedPorts | null {
  if (stored === null) return null;
  try {
    const value = JSON.parse(stored) as Partial<BlockedPorts>;
    return { TCP: sorted(value.TCP ?? []), UDP: sorted(value.UDP ?? []) };
  } catch {
    return null;
  }
}

/** Checks an operator's list (1 to 65535, at most 100 ports a protocol) and gives the text to store. */
export function storedPorts(ports: BlockedPorts | null): string | null {
  if (ports === null) return null;
  for (const protocol of ['TCP', 'UDP'] as const) {
    const list = ports[protocol] ?? [];
    if (list.length > 100) throw new Invalid('blocked_ports', `bad value: at most 100 ${protocol} ports`);
    if (list.some((port) => !Number.isInteger(port) || port < 1 || port > 65535))
      throw new Invalid('blocked_ports', `bad value: ${protocol} ports are integers from 1 to 65535`);
  }
  return JSON.stringify({ TCP: sorted(ports.TCP ?? []), UDP: sorted(ports.UDP ?? []) });
}

/**
 * The ports blocked for an account's servers: its own list or the default, without the SMTP
 * ports when `smtp` is true.
 */
export function blockedPortsOf(
  defaults: Readonly<BlockedPorts>,
  account: { blocked_ports: string | null; smtp: number },
): Readonly<BlockedPorts> {
  // Accounts share a handful of lists (most use the default): each is worked out once per set of
  // defaults (a deployment's; emulators side by side may differ), and shared frozen.
  const key = `${defaults.TCP}|${defaults.UDP}|${account.smtp}|${account.blocked_ports ?? ''}`;
  let ports = listsKept.get(key);
  if (!ports) {
    const worked = portsOf(defaults, account);
    ports = Object.freeze({ TCP: Object.freeze(worked.TCP), UDP: Object.freeze(worked.UDP) }) as Readonly<BlockedPorts>;
    if (listsKept.size >= maxListsKept) listsKept.clear();
    listsKept.set(key, ports);
  }
  return ports;
}

const listsKept = new Map<string, Readonly<BlockedPorts>>();
const maxListsKept = 1_000;

function portsOf(
  defaults: Readonly<BlockedPorts>,
  account: { blocked_ports: string | null; smtp: number },
): BlockedPorts {
  const list = parseStoredPorts(account.blocked_ports) ?? defaults;
  const lifted = account.smtp === 1 ? new Set(smtpPorts) : new Set<number>();
  return { TCP: sorted(list.TCP.filter((port) => !lifted.has(port))), UDP: sorted(list.UDP) };
}
