// The SDK's generated folder is committed; this test fails when it no longer matches what the
// server serves. Fix: `npm run openapi` (writes the document, then regenerates the types).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { documentPath, openapiDocument, serialise } from '../../scripts/openapi.ts';
import { typesOf, typesUrl } from '../../sdk/scripts/generate.ts';

test('sdk/src/generated matches the served OpenAPI document (else run `npm run openapi`)', async () => {
  const served = serialise(await openapiDocument());
  const committed = readFileSync(documentPath, 'utf8');
  assert.ok(committed === served, 'sdk/src/generated/openapi.json is stale: run `npm run openapi`');
  const types = readFileSync(typesUrl, 'utf8');
  assert.ok(
    types === (await typesOf(JSON.parse(served))),
    'sdk/src/generated/schema.ts is stale: run `npm run openapi`',
  );
});
