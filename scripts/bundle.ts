// `npm run bundle` (run by `npm install` through `prepare`): the server as one prebuilt module,
// dist/server/instance-<hash>.cjs, with a manifest of the files it was built from. A start then
// links one file instead of ~1,300 modules (TypeBox, Kysely, Fastify, Ajv and our own ~200):
// about 280 ms of CPU less at every process start and every first `startNubis()` of a test file.
// CommonJS, so that src/prebuilt-scripts.ts can run it as scripts with a V8 code cache made after
// a start (an ES module's cache can only be made before it runs).
// src/prebuilt.ts loads it only while the manifest still matches the sources; after an edit the
// sources load, as before. Packages that only rare requests need (Stripe, pdfkit, nodemailer, …)
// stay outside: they load from node_modules when first used, as they do from the sources. The
// PostgreSQL and Redis clients are inside (a chunk loaded with DATABASE_URL, REDIS_URL): every
// start on PostgreSQL loads them.
//
// The modules the sources load on first use (the LXD driver, the PDF renderer, …) stay chunks
// loaded on first use: inlined, their imports (node:http, node:https, …) would load at every
// start. Every file is named by its content and written beside the others, then the manifest
// names the new entry (each file by a rename): a process starting meanwhile reads either the old
// build or the new one. The build before stays too, for processes still running from it that have
// yet to load one of its chunks; older ones are removed. `--out DIR` builds elsewhere under the
// project (the test comparing it with the sources does), so that external packages still resolve
// from node_modules.

import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { rolldown, type Plugin } from 'rolldown';
import { externalPackages, packageOf } from './bundle-externals.ts';
import { manifestName, outputDir, type Manifest, type ManifestEntry } from '../src/prebuilt.ts';

const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = values.out ? resolve(values.out) : outputDir;

/**
 * The configuration stays the sources' own modules, shared with whoever loaded the bundle
 * (bin/nubis.ts, @nubis/testing read it first): one ConfigError class, which `nubis` turns into
 * its one-line refusal whichever side threw it. That is src/config.ts, the pieces its areas are
 * written with (src/platform/config-*.ts) and the areas' own `*.config.ts`.
 */
const isConfigModule = (path: string) =>
  path === resolve(root, 'src/config.ts') ||
  (path.startsWith(`${root}/src/`) && (/\.config\.ts$/.test(path) || /\/platform\/config-[^/]+\.ts$/.test(path)));
const sharedConfig: Plugin = {
  name: 'nubis-shared-config',
  resolveId(id, importer) {
    if (!id.startsWith('.') || !importer) return null;
    const path = resolve(dirname(importer), id);
    if (!isConfigModule(path)) return null;
    return { id: `./${relative(out, path)}`, external: true };
  },
};

/**
 * Our modules find their data files (the catalog, the SQLite schema, the console) beside their
 * sources through `import.meta`: in the bundle each keeps its own source location.
 */
const sourceLocations: Plugin = {
  name: 'nubis-source-locations',
  transform(code, id) {
    if (!id.startsWith(`${root}/src/`) || !code.includes('import.meta')) return null;
    return code
      .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(id).href))
      .replaceAll('import.meta.dirname', JSON.stringify(dirname(id)))
      .replaceAll('import.meta.filename', JSON.stringify(id));
  },
};

const bundle = await rolldown({
  input: resolve(root, 'src/instance.ts'),
  platform: 'node',
  external: (id) => !id.startsWith('.') && !id.startsWith('/') && externalPackages.has(packageOf(id)),
  plugins: [sharedConfig, sourceLocations],
  logLevel: 'silent',
});
const { output } = await bundle.generate({
  format: 'cjs',
  // The packages loaded on first use too: Node's own `require` (no flag-free `import()` from a script).
  dynamicImportInCjs: false,
  entryFileNames: 'instance-[hash].cjs',
  chunkFileNames: '[name]-[hash].cjs',
  // Licences stay in node_modules; the rest of the comments are the size of the code again.
  comments: { legal: false, jsdoc: false, annotation: true },
  // Non-ASCII characters escaped: Node decodes an ASCII file into a one-byte string, about half
  // the time of decoding the same UTF-8 into two-byte text, at every start.
  charset: 'ascii',
});
await bundle.close();
const chunks = output.filter((file) => file.type === 'chunk');
const entry = chunks.find((chunk) => chunk.isEntry);
if (!entry || chunks.length !== output.length) throw new Error('expected an entry and its chunks only');

/** Writes beside, then renames over: a reader sees the whole old file or the whole new one. */
function writeWhole(file: string, text: string): void {
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, text);
  renameSync(partial, file);
}

mkdirSync(out, { recursive: true });
const previous = ((): Manifest | null => {
  try {
    return JSON.parse(readFileSync(resolve(out, manifestName), 'utf8')) as Manifest;
  } catch {
    return null;
  }
})();
for (const chunk of chunks) {
  const file = resolve(out, chunk.fileName);
  if (!existsSync(file)) writeWhole(file, chunk.code);
}

// Our own sources, file by file; the packages through npm's record of the installed tree, which
// every install rewrites.
const modules = chunks.flatMap((chunk) => chunk.moduleIds);
const watched = modules.filter((id) => id.startsWith(`${root}/src/`));
watched.push(...[resolve(root, 'node_modules/.package-lock.json'), resolve(root, 'package.json')].filter(existsSync));
const files: ManifestEntry[] = watched.sort().map((file) => {
  const stat = statSync(file);
  return [relative(root, file), stat.mtimeMs, stat.size];
});
const manifest: Manifest = { entry: entry.fileName, build: chunks.map((chunk) => chunk.fileName), files };
writeWhole(resolve(out, manifestName), `${JSON.stringify(manifest)}\n`);
const kept = new Set([manifestName, ...manifest.build, ...(previous?.build ?? [])]);
for (const name of readdirSync(out))
  if (!kept.has(name) && !name.endsWith('.partial')) rmSync(resolve(out, name), { force: true });

console.log(
  `${relative(root, resolve(out, entry.fileName))}: ${modules.length} modules in ${chunks.length} files, ${(entry.code.length / 1e6).toFixed(1)} MB; ${files.length} sources watched for changes`,
);
