// How many floating IPs an account may hold.

import { area, variable } from '../platform/config-area.ts';
import { integer } from '../platform/config-parsers.ts';

export const floatingIpsConfig = area({
  title: 'Floating IPs',
  variables: {
    floatingIpsLimit: variable(
      'FLOATING_IPS_LIMIT',
      20,
      integer(0, 1_000_000),
      "floating IPs (the legacy API's reserved IPs) an account may hold at once",
    ),
  },
});
