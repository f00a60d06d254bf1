// The authoritative DNS server that publishes PTR records: PowerDNS Authoritative through its
// HTTP API (PDNS_API_URL, PDNS_API_KEY, PDNS_SERVER_ID). Zones are created Native (served from
// its own database, no zone transfer); records are replaced or deleted one RRset at a time.

import type { Config } from '../config.ts';
import type { ReverseDnsServer, ReverseZone } from './reverse-dns-server.ts';

const ttl = 3600;
const timeoutMs = 5000;

export class PowerDnsApi implements ReverseDnsServer {
  readonly #base: string;
  readonly #key: string;

  constructor(url: string, key: string, serverId: string) {
    this.#base = `${url.replace(/\/+$/, '')}/api/v1/servers/${encodeURIComponent(serverId)}`;
    this.#key = key;
  }

  /** The answer's status; one not in `ok` throws, with PowerDNS's own error text. */
  async #call(method: string, path: string, body: unknown, ok: number[]): Promise<number> {
    const response = await fetch(this.#base + path, {
      method,
      headers: { 'x-api-key': this.#key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    if (ok.includes(response.status)) return response.status;
    let reason = text;
    try {
      reason = (JSON.parse(text) as { error?: string }).error ?? text;
    } catch {}
    throw new Error(`PowerDNS ${method} ${path}: ${response.status} ${reason.slice(0, 200)}`);
  }

  #patch(zone: string, rrsets: unknown[]): Promise<number> {
    return this.#call('PATCH', `/zones/${encodeURIComponent(zone)}`, { rrsets }, [204, 404]);
  }

  async setPtr(zone: string, name: string, target: string | null): Promise<boolean> {
    const rrset =
      target === null
        ? { name, type: 'PTR', changetype: 'DELETE' }
        : { name, type: 'PTR', ttl, changetype: 'REPLACE', records: [{ content: `${target}.`, disabled: false }] };
    return (await this.#patch(zone, [rrset])) === 204;
  }

  async ensureZone(zone: ReverseZone): Promise<{ created: boolean; cnames: boolean }> {
    // 409: it exists already, which is what was asked.
    const status = await this.#call('POST', '/zones', { name: zone.name, kind: 'Native', nameservers: [] }, [201, 409]);
    if (zone.parent) {
      const rrsets = zone.parent.cnames.map((cname) => ({
        name: cname.name,
        type: 'CNAME',
        ttl,
        changetype: 'REPLACE',
        records: [{ content: cname.target, disabled: false }],
      }));
      // The parent /24 is often someone else's (the upstream provider): then they add these CNAMEs.
      return { created: status === 201, cnames: (await this.#patch(zone.parent.zone, rrsets)) === 204 };
    }
    return { created: status === 201, cnames: true };
  }
}

/** The DNS server the configuration names, or null when reverse DNS is not published. */
export function reverseDnsServer(config: Config): ReverseDnsServer | null {
  if (!config.pdnsApiUrl || !config.pdnsApiKey) return null;
  return new PowerDnsApi(config.pdnsApiUrl, config.pdnsApiKey, config.pdnsServerId);
}
