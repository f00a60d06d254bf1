// How `npm start` runs a serving instance, for the processes that stand in for one (the benches'
// `nubis serve`, the scale-out suite's instances): read from package.json's `start` script itself,
// so none of them drifts from what an operator runs.

import { readFileSync } from 'node:fs';

export interface ServingProcess {
  /** Node's flags before `bin/nubis.ts` (a young generation of 4 MB, an old one bounded to 512 MB). */
  flags: string[];
  /** The fixed variables set before `exec node` (two malloc arenas). */
  env: Record<string, string>;
}

export function servingProcess(): ServingProcess {
  const scripts = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts;
  const start = /^(.*)\bexec node (.*) bin\/nubis\.ts serve$/.exec(scripts.start as string);
  if (!start) throw new Error(`package.json's start script is not "… exec node <flags> bin/nubis.ts serve"`);
  const fixed = (start[1] as string).split(/\s+/).filter((word) => /^[A-Z_]+=[^$]+$/.test(word));
  return {
    flags: (start[2] as string).split(/\s+/),
    env: Object.fromEntries(fixed.map((word) => word.split('=', 2) as [string, string])),
  };
}
