// The rate limits of src/http/rate-limit.ts, and the Redis that shares their counters.

import { area, variable } from '../platform/config-area.ts';
import { integer, text, url, withPassword } from '../platform/config-parsers.ts';

/** What the emulator preset allows each limit: enough never to be met by one person. */
const relaxed = 1_000_000;

export const rateLimitConfig = area({
  title: 'Rate limits',
  variables: {
    redisUrl: variable<string | null>(
      'REDIS_URL',
      null,
      withPassword(url('redis:', 'rediss:')),
      'redis://… shares rate-limit counters between instances',
    ),
    redisPrefix: variable(
      'REDIS_PREFIX',
      'nubis:',
      text,
      'prefix of every Redis key, so several deployments can share one Redis',
    ),
    rateRegisterPerMinute: variable(
      'RATE_REGISTER_PER_MINUTE',
      20,
      integer(1, 1_000_000),
      'registrations a minute per client address',
    ),
    rateLoginPerMinute: variable(
      'RATE_LOGIN_PER_MINUTE',
      10,
      integer(1, 1_000_000),
      'login attempts a minute per client address and e-mail',
    ),
    rateLoginPerAddressPerMinute: variable(
      'RATE_LOGIN_PER_ADDRESS_PER_MINUTE',
      30,
      integer(1, 1_000_000),
      'login attempts a minute per client address, whatever the e-mail',
    ),
    rateActivatePerMinute: variable(
      'RATE_ACTIVATE_PER_MINUTE',
      20,
      integer(1, 1_000_000),
      'activation attempts a minute per client address',
    ),
    rateResetPerMinute: variable(
      'RATE_RESET_PER_MINUTE',
      10,
      integer(1, 1_000_000),
      'password resets a minute per client address',
    ),
    rateAccountInfoPerMinute: variable(
      'RATE_ACCOUNT_INFO_PER_MINUTE',
      60,
      integer(1, 100_000_000),
      'account/info calls a minute per token',
    ),
    rateAccountUpdatePerMinute: variable(
      'RATE_ACCOUNT_UPDATE_PER_MINUTE',
      20,
      integer(1, 1_000_000),
      'account/update calls a minute per token',
    ),
    ratePerTokenPerSecond: variable(
      'RATE_TOKEN_PER_SECOND',
      100,
      integer(1, 100_000_000),
      'requests a second per token, over every authenticated operation',
    ),
  },
  emulator: {
    rateRegisterPerMinute: relaxed,
    rateLoginPerMinute: relaxed,
    rateActivatePerMinute: relaxed,
    rateResetPerMinute: relaxed,
    rateAccountInfoPerMinute: relaxed,
    rateAccountUpdatePerMinute: relaxed,
    ratePerTokenPerSecond: relaxed,
  },
  note: `Rate limits are counted in real time (never on the virtual clock), in memory by default and in Redis when
\`REDIS_URL\` is set, so that several instances share one budget. A 429 carries \`Retry-After\` and \`RateLimit-*\` headers.`,
});
