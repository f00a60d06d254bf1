// On PostgreSQL a prepared query is planned once per connection (connect.ts), not on every run.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { testDb, testStorageEnv } from '../../test/support/instance.ts';
import { prepared, statementName } from './prepared.ts';

interface Probe {
  plan_probe: { id: number; owner: number; at: number };
}

test('a prepared read runs on its generic plan from its first run on', {
  skip: testDb === 'postgres' ? false : 'PostgreSQL plans statements; SQLite prepares each once',
}, async () => {
  const storage = await testStorageEnv();
  // One connection: every statement below runs on it, so its prepared statements can be read back.
  const opened = await storage.open(1);
  try {
    await sql`create table plan_probe (id integer primary key, owner integer not null, at bigint not null)`.execute(
      opened.db,
    );
    await sql`insert into plan_probe select i, i % 7, i * 10 from generate_series(1, 200) as i`.execute(opened.db);
    // Shaped like the hot reads: an owner's rows up to an instant. Left to itself, PostgreSQL plans
    // such a statement anew on each of its first five runs, and on every run when it judges a
    // plan for the values cheaper than one for any values (account/info's did: ~0.2 ms a run).
    const probeOf = (db: unknown, owner: number, until: number) =>
      (db as Kysely<Probe>).selectFrom('plan_probe').select('id').where('owner', '=', owner).where('at', '<=', until);
    const ofOwner = prepared<[number, number], { id: number }>(2, probeOf);
    for (let run = 0; run < 8; run++) assert.ok((await ofOwner.all(opened.db, run % 7, 1000 + run)).length > 0);
    const name = statementName(probeOf(opened.db, 0, 0).compile().sql);
    assert.ok(name, 'the probe runs as a named statement');
    const plans = await sql<{ generic_plans: number; custom_plans: number }>`
        select generic_plans, custom_plans from pg_prepared_statements where name = ${name}`.execute(opened.db);
    assert.deepEqual(plans.rows, [{ generic_plans: 8, custom_plans: 0 }]);
  } finally {
    await opened.close();
    await storage.cleanup();
  }
});
