// What a new account starts with (its servers limit, blocked ports, activation) and how long a
// temporary password works.

import { area, variable } from '../platform/config-area.ts';
import { boolean, integer, type Parser } from '../platform/config-parsers.ts';

const portList: Parser<number[]> = (raw, name) => {
  if (raw.trim() === '') return [];
  return raw.split(',').map((part) => integer(1, 65535)(part.trim(), name));
};

export const accountsConfig = area({
  title: 'Accounts',
  variables: {
    serversLimit: variable('SERVERS_LIMIT', 10, integer(0, 1_000_000), 'servers.limit of a new account'),
    blockedPortsTcp: variable(
      'BLOCKED_PORTS_TCP',
      [25, 465, 587],
      portList,
      "the deployment's default blocked TCP ports (comma-separated): shown in account info and dropped at the engine for every account without its own list",
    ),
    blockedPortsUdp: variable(
      'BLOCKED_PORTS_UDP',
      [] as number[],
      portList,
      "the deployment's default blocked UDP ports (comma-separated), as BLOCKED_PORTS_TCP",
    ),
    autoActivate: variable(
      'AUTO_ACTIVATE',
      false,
      boolean,
      'activate new accounts at registration (emulator convenience)',
    ),
    tempPasswordTtlSeconds: variable(
      'TEMP_PASSWORD_TTL',
      3600,
      integer(60, 30 * 86400),
      'seconds a temporary password from account/reset works',
    ),
  },
  emulator: { autoActivate: true },
});
