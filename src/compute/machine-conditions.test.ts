// The stored conditions' text: the queries that count servers by a condition (the shown power in
// SQL) match conditionStored against it, so it must hold whatever order a report's keys came in.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyConditions, conditionStored } from './machine-conditions.ts';

test('the stored text holds conditionStored for each condition, whatever the order of a report’s keys', () => {
  const { json } = applyConditions(
    null,
    [
      { message: 'gone', reason: 'InstanceMissing', status: 'false', type: 'MachinePresent' },
      { reason: 'EngineAnswered', type: 'EngineReachable', message: 'answered', status: 'true' },
    ],
    1000,
  );
  assert.ok(json.includes(conditionStored('MachinePresent', 'false')), json);
  assert.ok(json.includes(conditionStored('EngineReachable', 'true')), json);
  assert.ok(json.includes(conditionStored('Degraded', 'true')), json);
  assert.ok(!json.includes(conditionStored('EngineReachable', 'false')), json);
});

test('a report of what is stored changes nothing and keeps each time; one that differs is written', () => {
  const present = { type: 'MachinePresent', status: 'true', reason: 'InstanceFound', message: 'found' } as const;
  const reachable = { type: 'EngineReachable', status: 'true', reason: 'EngineAnswered', message: 'answered' } as const;
  const missing = { type: 'MachinePresent', status: 'false', reason: 'InstanceMissing', message: 'gone' } as const;
  for (const first of [
    [reachable, present],
    [reachable, missing],
  ]) {
    const stored = applyConditions(null, first, 1000).json;
    const again = applyConditions(stored, [...first].reverse(), 2000);
    assert.deepEqual({ json: again.json, changed: again.changed }, { json: stored, changed: false });
    // Only part of what is stored, reported again: the rest stays as it was.
    assert.equal(applyConditions(stored, [reachable], 3000).changed, false);
  }
  const healthy = applyConditions(null, [reachable, present], 1000).json;
  const lost = applyConditions(healthy, [reachable, missing], 2000);
  assert.equal(lost.changed, true);
  assert.deepEqual(
    lost.conditions.map((c) => [c.type, c.status, c.since]),
    [
      ['EngineReachable', 'true', 1000],
      ['MachinePresent', 'false', 2000],
      ['Degraded', 'true', 2000],
    ],
  );
  // The same message with another reason is a change too.
  assert.equal(applyConditions(healthy, [{ ...present, reason: 'Other' }], 3000).changed, true);
});
