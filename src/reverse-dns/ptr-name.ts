// The one rule of the name an address's PTR holds (docs/decisions.md, "Default PTR"): the
// customer's rdns/put name once set, else the hostname of the server the address reaches (its
// own IPv4 or IPv6, or a floating IP attached to it), else none. IPv4 and IPv6 alike.

/** An address as the rule reads it: the reverse name set on it (null: none yet). */
export interface ReverseNamed {
  reverse: string | null;
}

/** The server an address reaches, by its hostname. */
export interface PtrServer {
  hostname: string;
}

/**
 * The name the address's PTR holds: `address.reverse` once set, else `server`'s hostname (a
 * server's own address, or a floating IP attached to it), else null (an unattached floating IP).
 *
 * @example ptrName({ reverse: null }, { hostname: 'web-1.example.com' }) // 'web-1.example.com'
 */
export function ptrName(address: ReverseNamed, server: PtrServer): string;
export function ptrName(address: ReverseNamed, server: PtrServer | null): string | null;
export function ptrName(address: ReverseNamed, server: PtrServer | null): string | null {
  return address.reverse ?? server?.hostname ?? null;
}
