// The decision of bandwidth overage as a table: for each policy, below, at and past the point,
// what the sweep does and whether a start is held off (src/servers/overage.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { overageOf, overageSteps, type OveragePolicy } from './overage.ts';

const options = (policy: OveragePolicy, threshold = 1) => ({
  bw_overage_policy: policy,
  bw_overage_threshold: threshold,
});

test('each policy below, at and past its point, and a plan without an allowance', () => {
  const cases: [policy: OveragePolicy, limitGb: number, usageGb: number, billedGb: number, steps: string][] = [
    ['power_off', 100, 99.99, 0, 'none'],
    ['power_off', 100, 100, 0, 'hold off'],
    ['power_off', 0, 5000, 0, 'none'],
    ['throttle', 100, 99.99, 0, 'none'],
    ['throttle', 100, 100, 0, 'throttle'],
    ['throttle', 100, 250, 0, 'throttle'],
    ['charge', 100, 100.99, 0, 'none'],
    ['charge', 100, 102.5, 0, 'bill 2'],
    ['charge', 100, 102.5, 1, 'bill 1'],
    ['charge', 100, 102.5, 2, 'none'],
    ['charge', 100, 102.5, 3, 'none'],
  ];
  for (const [policy, limitGb, usageGb, billedGb, expected] of cases) {
    const { throttle, holdOff, billGb } = overageSteps(overageOf(options(policy), limitGb, usageGb), billedGb);
    const steps = [throttle && 'throttle', holdOff && 'hold off', billGb > 0 && `bill ${billGb}`].filter(Boolean);
    assert.equal(steps.join(', ') || 'none', expected, `${policy}, ${usageGb} of ${limitGb} GB, ${billedGb} billed`);
  }
});

test('the point is the threshold times the allowance', () => {
  assert.equal(overageSteps(overageOf(options('power_off', 0.5), 100, 49.99)).holdOff, false);
  assert.equal(overageSteps(overageOf(options('power_off', 0.5), 100, 50)).holdOff, true);
});
