// Generates the SDK's types from the OpenAPI document (src/generated/openapi.json, written by
// the server's `scripts/openapi.ts`) with openapi-typescript: types only, no runtime code.
//   node sdk/scripts/generate.ts    rewrite src/generated/schema.ts

import { readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';

export const documentUrl = new URL('../src/generated/openapi.json', import.meta.url);
export const typesUrl = new URL('../src/generated/schema.ts', import.meta.url);

/** The TypeScript source openapi-typescript makes of a document: `paths`, `components`, `operations`. */
export async function typesOf(document: unknown): Promise<string> {
  const ast = await openapiTS(document as OpenAPI3, {
    // Component schemas also become top-level types (`Server`, `Account`, `ErrorObject`…).
    rootTypes: true,
    rootTypesNoSchemaPrefix: true,
    silent: true,
  });
  return COMMENT_HEADER + astToString(ast);
}

if (import.meta.main) {
  const document = JSON.parse(readFileSync(documentUrl, 'utf8')) as unknown;
  writeFileSync(typesUrl, await typesOf(document));
  console.log(`wrote ${typesUrl.pathname}`);
}
