// The private IPv4 space of VPCs: each VPC of an account gets its own /24 from 10.0.0.0/8,
// and each member server a host address of that /24 (.1 is the VPC's gateway).

import { Conflict } from '../platform/errors.ts';

const RANGES_IN_10_8 = 65_536;

/** The lowest /24 of 10.0.0.0/8 not in `taken` (CIDR strings), e.g. "10.0.3.0/24". */
export function nextPrivateRange(taken: Iterable<string>): string {
  const used = new Set(taken);
  for (let index = 0; index < RANGES_IN_10_8; index++) {
    const cidr = `10.${index >> 8}.${index & 255}.0/24`;
    if (!used.has(cidr)) return cidr;
  }
  throw new Conflict('the account has used every private /24 of 10.0.0.0/8: remove a VPC first');
}

/** Host addresses a member may take, lowest first: the range without network, gateway (.1) and broadcast. */
export function* hostAddresses(cidr: string): Generator<string> {
  const [base = '', bits = ''] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  const start = base.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
  for (let offset = 2; offset < size - 1; offset++) {
    const value = start + offset;
    yield [Math.floor(value / 2 ** 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
  }
}
