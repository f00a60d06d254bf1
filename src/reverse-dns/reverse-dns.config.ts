// The PowerDNS the addresses' reverse DNS (PTR records) is published to.

import { area, variable } from '../platform/config-area.ts';
import { secret, text, url } from '../platform/config-parsers.ts';

export const reverseDnsConfig = area({
  title: 'Reverse DNS',
  variables: {
    pdnsApiUrl: variable<string | null>(
      'PDNS_API_URL',
      null,
      url('http:', 'https:'),
      "http://host:port of a PowerDNS Authoritative HTTP API (its webserver): publish every address's reverse DNS (PTR) there, through a retried outbox; needs PDNS_API_KEY (docs/reverse-dns.md)",
    ),
    pdnsApiKey: variable<string | null>(
      'PDNS_API_KEY',
      null,
      secret(8),
      'the `api-key` of that PowerDNS (sent as X-API-Key)',
    ),
    pdnsServerId: variable('PDNS_SERVER_ID', 'localhost', text, 'the PowerDNS server id in its API paths'),
  },
  integrations: [{ name: 'PowerDNS (reverse DNS)', together: ['PDNS_API_URL', 'PDNS_API_KEY'] }],
});
