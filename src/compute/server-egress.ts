// What a server may send, as data an engine enforces (derived in egress-policy.ts).

import type { BlockedPorts } from '../accounts/port-policy.ts';
import type { Region } from '../catalog/catalog.types.ts';

/** A server's egress policy: the addresses its traffic leaves from and the ports it may not reach. */
export interface ServerEgress {
  uuid: string;
  region: Region;
  ipv4: string | null;
  ipv6: string | null;
  floating: string[];
  blocked: BlockedPorts;
}
