// A disk the engine gave up making: the owner is told why in plain words, and reconciliation keeps
// that reason (rather than "not made yet") until a new try.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyConditions, conditionOf, isWithoutMachine } from './machine-conditions.ts';
import { createFailed, missingReport } from './machine-status.ts';

const full =
  'provisioning failed after 3 attempts: Unpack failed: tar -C /var/lib/lxd/storage-pools/p/images/x: No space left on device';

test('a create given up on a full pool: the storage named, no host detail', () => {
  const report = createFailed(full);
  assert.equal(report.reason, 'CreateFailed');
  assert.match(report.message, /its storage is full/);
  assert.doesNotMatch(report.message, /\/var\/lib/);
  assert.match(createFailed('engine /x.socket unreachable').message, /could not be reached/);
  assert.match(createFailed('Invalid config').message, /the engine refused it/);
});

test('reconciliation keeps a create given up until a new try; the server has no machine', () => {
  const given = applyConditions(null, [createFailed(full)], 1);
  assert.equal(isWithoutMachine(given.conditions), true);
  const row = { disk_generation: 1, observed_disk_generation: null, conditions: given.json };
  const next = applyConditions(given.json, missingReport(row).conditions, 2);
  assert.equal(conditionOf(next.conditions, 'MachinePresent')?.reason, 'CreateFailed');
  // Never given up: simply not made yet, and no machine to miss.
  const fresh = applyConditions(null, missingReport({ ...row, conditions: null }).conditions, 2);
  assert.equal(conditionOf(fresh.conditions, 'MachinePresent')?.reason, 'NotMade');
  assert.equal(isWithoutMachine(fresh.conditions), false);
});
