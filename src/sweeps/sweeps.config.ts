// Whether this process runs the periodic sweeps, and how often.

import { area, variable } from '../platform/config-area.ts';
import { boolean, integer } from '../platform/config-parsers.ts';

export const sweepsConfig = area({
  title: 'Sweeps',
  variables: {
    sweeps: variable('SWEEPS', true, boolean, 'run the periodic sweeps (backups, funds, mail retries) in this process'),
    sweepIntervalSeconds: variable('SWEEP_INTERVAL_SECONDS', 30, integer(1, 86400), 'seconds between two sweep rounds'),
  },
});
