// What publishing reverse DNS needs of a DNS server (implemented by PowerDnsApi), and the zone
// shape it is given: kept apart from the implementations, so the platform context can name it.

/** A reverse zone and, for an RFC 2317 classless one, the CNAMEs its parent /24 zone must hold. */
export interface ReverseZone {
  /** Fully qualified, with the trailing dot, as PowerDNS names zones. */
  name: string;
  /** RFC 2317: the /24 zone above and its CNAMEs (one per address of the pool) into this zone. */
  parent?: { zone: string; cnames: { name: string; target: string }[] };
}

export interface ReverseDnsServer {
  /** Sets (target) or removes (null) the PTR at `name` in `zone`; false when the zone does not exist. */
  setPtr(zone: string, name: string, target: string | null): Promise<boolean>;
  /**
   * Creates the zone unless it exists, and a classless zone's CNAMEs in its parent when the parent
   * is on this server (false in `cnames`: they are for the parent's holder to add).
   */
  ensureZone(zone: ReverseZone): Promise<{ created: boolean; cnames: boolean }>;
}
