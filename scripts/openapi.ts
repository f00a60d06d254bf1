// Writes the OpenAPI document without listening: builds the HTTP app on a throw-away SQLite
// data directory, reads `app.openapi.json()`, and saves it where the SDK is generated from
// (sdk/src/generated/openapi.json). `npm run openapi` then regenerates the SDK's types.
//   node scripts/openapi.ts            write the document
//   node scripts/openapi.ts --stdout   print it instead

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createPlatform, createLogger, prepareStorage } from '../src/instance.ts';
import { createRateLimiters } from '../src/http/rate-limit.ts';
import { buildApp } from '../src/http/app.ts';
import { servedApis } from '../src/api/served-apis.ts';

export const documentPath = new URL('../sdk/src/generated/openapi.json', import.meta.url);

/** The document exactly as `GET /openapi.json` serves it, built without a port or a real database. */
export async function openapiDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'nubis-openapi-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SWEEPS: 'false' });
    const log = createLogger('silent');
    const storage = await prepareStorage(config, log);
    try {
      const ctx = await createPlatform(config, storage, log);
      const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
        version: string;
      };
      const app = await buildApp({
        ctx,
        apis: servedApis,
        storage,
        limiters: createRateLimiters(config, null),
        version,
        logger: log,
      });
      await app.ready();
      const document = structuredClone(await app.openapi.json());
      await app.close();
      return document;
    } finally {
      await storage.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The document as committed: stable key order as served, two-space indentation, final newline. */
export function serialise(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

if (import.meta.main) {
  const text = serialise(await openapiDocument());
  if (process.argv.includes('--stdout')) process.stdout.write(text);
  else {
    writeFileSync(documentPath, text);
    console.log(`wrote ${documentPath.pathname}`);
  }
}
