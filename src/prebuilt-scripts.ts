// Runs the prebuilt bundle's files (CommonJS, scripts/bundle.ts) with a V8 code cache that is made
// after a start. Node's compile cache keeps only what V8 compiles as a module loads, so every
// process compiled again, on first call, each function a start runs (route registration, Fastify,
// Ajv's set-up, …); a cache made once the start is over holds those too. It lives in Node's
// compile cache directory (module.enableCompileCache, NODE_COMPILE_CACHE: one per Node version),
// per V8 flags and CPU (v8.cachedDataVersionTag) and per file (each named by its content); no
// compile cache, no code cache.
// V8 checks each cache against its source and flags, and refuses one that does not match: the
// file is then compiled as without one, and a new cache is written.

import { createRequire, getCompileCacheDir } from 'node:module';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { cachedDataVersionTag } from 'node:v8';
import { Script } from 'node:vm';

interface Ran {
  script: Script;
  cacheFile: string | null;
  /** V8 took the stored cache: nothing to write. */
  cached: boolean;
}

const exportsOf = new Map<string, { exports: unknown }>();
const ran: Ran[] = [];

function cacheFileOf(file: string): string | null {
  const dir = getCompileCacheDir();
  return dir ? resolve(dir, 'nubis-prebuilt', `${basename(file)}.${cachedDataVersionTag()}.v8`) : null;
}

function readCache(file: string | null): Buffer | undefined {
  if (!file) return undefined;
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * The exports of the bundle's file `file`, run once per process. Its own chunks (`./<name>.cjs`)
 * load the same way; packages, Node's modules and the shared configuration through Node's
 * `require` (the bundle holds no `import()`: a script's needs a flag).
 */
export function runBundleFile(file: string): unknown {
  const known = exportsOf.get(file);
  if (known) return known.exports;
  // The bundle is ASCII (scripts/bundle.ts): read as Latin-1, the one-byte string V8 wants.
  const source = readFileSync(file, 'latin1');
  const cacheFile = cacheFileOf(file);
  const cachedData = readCache(cacheFile);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  const module = { exports: {} as unknown };
  exportsOf.set(file, module);
  ran.push({ script, cacheFile, cached: cachedData !== undefined && !script.cachedDataRejected });
  const dir = dirname(file);
  const nodeRequire = createRequire(file);
  const require = Object.assign(
    (id: string) => (id.startsWith('./') && id.endsWith('.cjs') ? runBundleFile(resolve(dir, id)) : nodeRequire(id)),
    nodeRequire,
  );
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, require, module, file, dir);
  return module.exports;
}

/**
 * Writes the code cache of each bundle file run without one (or with one V8 refused), with what
 * V8 has compiled so far: called once a start is over. Beside, then renamed over, so that a
 * process starting meanwhile reads a whole cache or none. A cache that cannot be written is left
 * out: it only saves time.
 */
export function saveCodeCache(): void {
  for (const entry of ran) {
    if (entry.cached || !entry.cacheFile) continue;
    entry.cached = true;
    try {
      mkdirSync(dirname(entry.cacheFile), { recursive: true });
      const partial = `${entry.cacheFile}.${process.pid}.partial`;
      writeFileSync(partial, entry.script.createCachedData());
      renameSync(partial, entry.cacheFile);
    } catch {
      // Read-only or full: the next start compiles as it would have without it.
    }
  }
}
