// Loads the server (src/instance.ts and all it imports) for bin/nubis.ts and @nubis/testing: from
// the prebuilt bundle that `npm run bundle` writes (scripts/bundle.ts) while every source it was
// built from is unchanged (run with a code cache, src/prebuilt-scripts.ts), else from the sources. The bundle is a cache of the sources, never a
// second version of them: a changed, moved or deleted source, or another install of packages,
// makes it stale, and NUBIS_PREBUILT=off always loads the sources. This module loads nothing
// else, so that asking costs a few hundred stat calls (about a millisecond).

import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** A watched file: its path from the project's root, modification time (ms) and size. */
export type ManifestEntry = [path: string, mtimeMs: number, size: number];

export interface Manifest {
  /** The bundle's entry module, in `outputDir`. */
  entry: string;
  /** Every file of the build: the entry and the chunks it loads on first use. */
  build: string[];
  files: ManifestEntry[];
}

const root = resolve(import.meta.dirname, '..');
export const outputDir = resolve(root, 'dist/server');
export const manifestName = 'manifest.json';

/** True when every watched file is as it was when the bundle was built. */
export function matchesSources(manifest: Manifest, base = root): boolean {
  for (const [path, mtimeMs, size] of manifest.files) {
    const stat = statSync(resolve(base, path), { throwIfNoEntry: false });
    if (!stat || stat.mtimeMs !== mtimeMs || stat.size !== size) return false;
  }
  return manifest.files.length > 0;
}

/** Where the server's code comes from in this process. */
export type ServerCode = 'prebuilt' | 'sources';

/** The fresh bundle's entry URL in `dir`, or null (none built, stale, or NUBIS_PREBUILT=off). */
export function prebuiltEntry(env: NodeJS.ProcessEnv = process.env, dir = outputDir): string | null {
  if (/^(off|0|false|no)$/i.test(env.NUBIS_PREBUILT ?? '')) return null;
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(resolve(dir, manifestName), 'utf8')) as Manifest;
  } catch {
    return null;
  }
  return matchesSources(manifest) ? pathToFileURL(resolve(dir, manifest.entry)).href : null;
}

type InstanceModule = typeof import('./instance.ts');

/**
 * src/instance.ts's exports, from the bundle in `dir` when it is fresh; and `saveCodeCache`, to
 * call once started (src/prebuilt-scripts.ts: the next process compiles less; from the sources,
 * nothing to save).
 */
export async function loadInstance(
  env: NodeJS.ProcessEnv = process.env,
  dir = outputDir,
): Promise<InstanceModule & { code: ServerCode; saveCodeCache: () => void }> {
  const entry = prebuiltEntry(env, dir);
  if (entry) {
    const { runBundleFile, saveCodeCache } = await import('./prebuilt-scripts.ts');
    const file = fileURLToPath(entry);
    try {
      return { ...(runBundleFile(file) as InstanceModule), code: 'prebuilt', saveCodeCache };
    } catch (error) {
      // A build replaced it between reading the manifest and now: the sources are as good.
      const { code, path } = error as NodeJS.ErrnoException;
      if (code !== 'ENOENT' || path !== file) throw error;
    }
  }
  return { ...(await import('./instance.ts')), code: 'sources', saveCodeCache: () => {} };
}
