// Assertions on the v1.3 error shapes, shared by the black-box tests.

import assert from 'node:assert/strict';
import type { HttpResult } from './instance.ts';

interface FieldErrors {
  errors: { field: string; reason: string }[];
}

/** A 400 whose error list names exactly these fields (in any order). */
export function assertFieldErrors(result: HttpResult<FieldErrors>, fields: string[]): void {
  assert.equal(result.status, 400, JSON.stringify(result.body));
  assert.deepEqual(result.body.errors.map((e) => e.field).sort(), [...fields].sort());
}
