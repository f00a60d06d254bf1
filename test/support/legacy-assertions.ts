// Assertions on the legacy API's error envelope, shared by the /v1 tests.

import assert from 'node:assert/strict';
import type { HttpResult } from './instance.ts';

interface LegacyError {
  message: string;
  response_type: string;
  response_code: number;
  fields?: { field: string; reason: string }[];
}

/** A 400 whose envelope names exactly these form fields, in `fields` and in the message. */
export function assertFieldErrors(result: HttpResult<LegacyError>, fields: string[]): void {
  assert.equal(result.status, 400, JSON.stringify(result.body));
  assert.equal(result.body.response_type, 'error');
  assert.equal(result.body.response_code, 400);
  assert.deepEqual((result.body.fields ?? []).map((f) => f.field).sort(), [...fields].sort());
  for (const field of fields) assert.match(result.body.message, new RegExp(`\\b${field}: `));
}

/** An error envelope with the HTTP status as its response_code (and a message matching, when given). */
export function assertError(result: HttpResult<LegacyError>, status: number, message?: RegExp): void {
  assert.equal(result.status, status, JSON.stringify(result.body));
  assert.equal(result.body.response_type, 'error');
  assert.equal(result.body.response_code, status);
  assert.equal(typeof result.body.message, 'string');
  if (message) assert.match(result.body.message, message);
}
