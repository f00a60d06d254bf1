// The default PTR rule, over every kind of address a server reaches (IPv4 and IPv6, its own and floating).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ptrName } from './ptr-name.ts';

const server = { hostname: 'web-1.example.com' };

const cases: {
  what: string;
  address: { address: string; reverse: string | null };
  attachedTo: typeof server | null;
  name: string | null;
}[] = [
  {
    what: "a server's own IPv4, unset",
    address: { address: '192.0.2.17', reverse: null },
    attachedTo: server,
    name: 'web-1.example.com',
  },
  {
    what: "a server's own IPv6 (::1 of its /64), unset",
    address: { address: '2001:db8:0:5::1', reverse: null },
    attachedTo: server,
    name: 'web-1.example.com',
  },
  {
    what: "a server's own IPv4 after rdns/put",
    address: { address: '192.0.2.17', reverse: 'mail.example.org' },
    attachedTo: server,
    name: 'mail.example.org',
  },
  {
    what: "a server's own IPv6 after rdns/put",
    address: { address: '2001:db8:0:5::1', reverse: 'v6.example.org' },
    attachedTo: server,
    name: 'v6.example.org',
  },
  {
    what: 'an attached floating IPv4, unset',
    address: { address: '198.51.100.9', reverse: null },
    attachedTo: server,
    name: 'web-1.example.com',
  },
  {
    what: 'an attached floating IPv6 block, unset',
    address: { address: '2001:db8:0:9::', reverse: null },
    attachedTo: server,
    name: 'web-1.example.com',
  },
  {
    what: 'an unattached floating IPv4, unset',
    address: { address: '198.51.100.9', reverse: null },
    attachedTo: null,
    name: null,
  },
  {
    what: 'an unattached floating IPv6 block, unset',
    address: { address: '2001:db8:0:9::', reverse: null },
    attachedTo: null,
    name: null,
  },
  {
    what: 'an unattached floating IPv4 after rdns/put',
    address: { address: '198.51.100.9', reverse: 'lb.example.org' },
    attachedTo: null,
    name: 'lb.example.org',
  },
  {
    what: 'an attached floating IPv6 block after rdns/put',
    address: { address: '2001:db8:0:9::', reverse: 'v6lb.example.org' },
    attachedTo: server,
    name: 'v6lb.example.org',
  },
];

for (const { what, address, attachedTo, name } of cases)
  test(`default PTR: ${what} → ${name ?? 'none'}`, () => {
    assert.equal(ptrName(address, attachedTo), name);
  });
