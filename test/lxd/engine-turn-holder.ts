// A process of its own that holds the engine's turn for making containers (engine-turn.ts) as a
// Nubis process would: prints `holding` once it has it, gives it back when told `give` on stdin
// and prints `given`. For test/lxd/engine-turn.lxd.ts (TURN_NAME, TURN_LAPSE_MS).

import { createInterface } from 'node:readline';
import { engineTurn, LxdClient } from '../../src/compute/lxd-engine.ts';
import { lxdUrl } from './support.ts';

const client = new LxdClient({ url: lxdUrl });
const hold = engineTurn(client, {
  name: process.env.TURN_NAME,
  lapseMs: Number(process.env.TURN_LAPSE_MS ?? 60_000),
  holder: `holder/${process.pid}`,
});
const lines = createInterface({ input: process.stdin });
await hold(async () => {
  console.log('holding');
  for await (const line of lines) if (line === 'give') break;
});
console.log('given');
client.close();
// stdin stays open (the test's pipe): leave now.
process.exit(0);
