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
