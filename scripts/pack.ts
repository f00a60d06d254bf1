// `npm run pack`: the packages a client developer installs into a project of their own, as npm
// tarballs in dist/packages/ (nothing is published):
//   @nubis/sdk      the SDK as JavaScript with type declarations (tsc), for Node 22+ and browsers;
//   nubis           the server and the `nubis` command, one bundle (rolldown) of bin/nubis.ts, the
//                   server and the CLI, with the data files the server reads beside its sources;
//   @nubis/testing  startNubis(), which loads the server from the `nubis` package.
// In the checkout the workspaces keep exporting their TypeScript sources (Node runs them as they
// are); a staged copy of each package, with `exports` pointing at the built JavaScript, is what
// gets packed. scripts/pack-check.ts installs the tarballs into a scratch project and uses them.

import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { rolldown, type Plugin } from 'rolldown';
import { builtinModulesPlugin } from './builtin-modules.ts';
import { externalPackages, packageOf } from './bundle-externals.ts';

const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { out: { type: 'string' } } });
export const packagesDir = resolve(values.out ?? join(root, 'dist/packages'));
const stage = join(packagesDir, 'stage');

interface PackageJson {
  name: string;
  version: string;
  description?: string;
  license?: string;
  dependencies?: Record<string, string>;
  [key: string]: unknown;
}

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
const rootPackage = readJson(join(root, 'package.json'));
// The project names no licence yet (docs/decisions.md, "Licence"): the packages say so rather than guess one.
const license = rootPackage.license ?? 'UNLICENSED';
const common = {
  version: rootPackage.version,
  license,
  type: 'module',
};

/** The version of an installed package, as a range a published package.json can name. */
function installedVersion(name: string, from = root): string {
  const declared = rootPackage.dependencies?.[name];
  if (declared) return declared;
  const require = createRequire(join(from, 'package.json'));
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, 'package.json')) || readJson(join(dir, 'package.json')).name !== name)
    dir = dirname(dir);
  return `^${readJson(join(dir, 'package.json')).version}`;
}

const isBare = (id: string) =>
  !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('node:') && !id.includes('\0');

function writePackage(dir: string, manifest: Record<string, unknown>, readme: string): void {
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, 'README.md'), readme);
}

/** `npm pack` of a staged folder into packagesDir; the tarball's path. */
function pack(dir: string): string {
  const output = execFileSync('npm', ['pack', '--json', '--pack-destination', packagesDir], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return join(packagesDir, (JSON.parse(output) as { filename: string }[])[0]!.filename);
}

/** The SDK: tsc's JavaScript and declarations of sdk/src, and the OpenAPI document. */
function buildSdk(): string {
  const dir = join(stage, 'sdk');
  const sdk = readJson(join(root, 'sdk/package.json'));
  execFileSync(join(root, 'sdk/node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json', '--outDir', join(dir, 'dist')], {
    cwd: join(root, 'sdk'),
    stdio: 'inherit',
  });
  // tsc rewrites `.ts` to `.js` in the JavaScript, not in the declarations it writes beside it.
  for (const file of readdirSync(join(dir, 'dist'), { recursive: true, encoding: 'utf8' }))
    if (file.endsWith('.d.ts')) {
      const path = join(dir, 'dist', file);
      writeFileSync(path, readFileSync(path, 'utf8').replace(/(from '\.{1,2}\/[^']+)\.ts'/g, "$1.js'"));
    }
  cpSync(join(root, 'sdk/src/generated/openapi.json'), join(dir, 'dist/generated/openapi.json'));
  writePackage(
    dir,
    {
      name: sdk.name,
      ...common,
      description: sdk.description,
      exports: {
        '.': { types: './dist/index.d.ts', default: './dist/index.js' },
        './openapi.json': './dist/generated/openapi.json',
      },
      types: './dist/index.d.ts',
      files: ['dist'],
      sideEffects: false,
      engines: { node: '>=22' },
      dependencies: sdk.dependencies,
    },
    readFileSync(join(root, 'docs/sdk.md'), 'utf8'),
  );
  return pack(dir);
}

/**
 * Our modules find their data files beside their sources through `import.meta`: in the package,
 * every chunk sits in dist/, and each module's `import.meta.url` becomes its source's place in the
 * package (`<package>/src/catalog/catalog.ts`), where its data files are copied.
 */
const sourcePlaces: Plugin = {
  name: 'nubis-package-source-places',
  transform(code, id) {
    if (!id.startsWith(`${root}/`) || id.includes('/node_modules/') || !code.includes('import.meta')) return null;
    const file = JSON.stringify(`../${relative(root, id)}`);
    const folder = JSON.stringify(`../${relative(root, dirname(id))}/`);
    const path = (url: string) => `decodeURIComponent(new URL(${url}, import.meta.url).pathname)`;
    return code
      .replaceAll('import.meta.url', `new URL(${file}, import.meta.url).href`)
      .replaceAll('import.meta.dirname', `${path(folder)}.replace(/\\/$/, '')`)
      .replaceAll('import.meta.filename', path(file));
  },
};

/** Licences of the packages inlined into a bundle, for the notice file shipped with it. */
function notices(moduleIds: string[]): string {
  const seen = new Map<string, string>();
  for (const id of moduleIds) {
    const at = id.lastIndexOf('/node_modules/');
    if (at < 0) continue;
    const name = packageOf(id.slice(at + '/node_modules/'.length));
    const dir = join(id.slice(0, at), 'node_modules', name);
    if (seen.has(dir)) continue;
    const manifest = readJson(join(dir, 'package.json'));
    const licenceFile = readdirSync(dir).find((entry) => /^licen[cs]e/i.test(entry));
    const text = licenceFile ? readFileSync(join(dir, licenceFile), 'utf8').trim() : `(${manifest.license})`;
    seen.set(dir, `## ${manifest.name} ${manifest.version} (${manifest.license})\n\n${text}\n`);
  }
  return `# Third-party software bundled in this package\n\n${[...seen.values()].sort().join('\n')}`;
}

/** The server and the `nubis` command: bin/nubis.ts, src/config.ts and src/prebuilt.ts as entries. */
async function buildServer(): Promise<string> {
  const dir = join(stage, 'nubis');
  const bundle = await rolldown({
    input: {
      nubis: join(root, 'bin/nubis.ts'),
      config: join(root, 'src/config.ts'),
      prebuilt: join(root, 'src/prebuilt.ts'),
    },
    platform: 'node',
    external: (id) => isBare(id) && externalPackages.has(packageOf(id)),
    plugins: [sourcePlaces, builtinModulesPlugin],
    logLevel: 'silent',
  });
  const { output } = await bundle.write({
    dir: join(dir, 'dist'),
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
    comments: { legal: false, jsdoc: false, annotation: true },
  });
  await bundle.close();
  const chunks = output.filter((file) => file.type === 'chunk');
  // A chunk's imports name the other chunks by file name, and the packages left outside by specifier.
  const own = new Set(chunks.map((chunk) => chunk.fileName));
  const imported = new Set(
    chunks
      .flatMap((chunk) => [...chunk.imports, ...chunk.dynamicImports])
      .filter((id) => isBare(id) && !own.has(id))
      .map(packageOf),
  );
  writeFileSync(join(dir, 'THIRD-PARTY-NOTICES.md'), notices(chunks.flatMap((chunk) => chunk.moduleIds)));
  // The data files the sources read beside themselves, where sourcePlaces points them.
  for (const file of ['src/catalog/catalog.json', 'src/billing/billing.json', 'src/db/sqlite-schema.sql'])
    cpSync(join(root, file), join(dir, file));
  if (existsSync(join(root, 'console/dist')))
    cpSync(join(root, 'console/dist'), join(dir, 'console/dist'), { recursive: true });
  writePackage(
    dir,
    {
      name: 'nubis',
      ...common,
      description: rootPackage.description,
      bin: { nubis: './dist/nubis.js' },
      exports: { './config': './dist/config.js', './prebuilt': './dist/prebuilt.js' },
      files: ['dist', 'src', 'console', 'THIRD-PARTY-NOTICES.md'],
      engines: { node: '>=24' },
      dependencies: Object.fromEntries([...imported].sort().map((name) => [name, installedVersion(name)])),
    },
    readFileSync(join(root, 'README.md'), 'utf8'),
  );
  return pack(dir);
}

interface TypeScriptApi {
  ModuleKind: { NodeNext: number };
  ScriptTarget: { ES2022: number };
  transpileDeclaration(
    source: string,
    options: { fileName: string; compilerOptions: Record<string, unknown> },
  ): { outputText: string; diagnostics?: { messageText: unknown }[] };
  flattenDiagnosticMessageText(message: unknown, newLine: string): string;
}

/** @nubis/testing, loading the server through the `nubis` package. */
async function buildTesting(): Promise<string> {
  const dir = join(stage, 'testing');
  const testing = readJson(join(root, 'testing/package.json'));
  const fromServer: Record<string, string> = {
    [join(root, 'src/config.ts')]: 'nubis/config',
    [join(root, 'src/prebuilt.ts')]: 'nubis/prebuilt',
  };
  const serverPackage: Plugin = {
    name: 'nubis-server-package',
    resolveId(id, importer) {
      if (!importer || !id.startsWith('.')) return null;
      const target = fromServer[resolve(dirname(importer), id)];
      return target ? { id: target, external: true } : null;
    },
  };
  const bundle = await rolldown({
    input: join(root, 'testing/src/index.ts'),
    platform: 'node',
    external: (id) => isBare(id),
    plugins: [serverPackage],
    logLevel: 'silent',
  });
  await bundle.write({ dir: join(dir, 'dist'), format: 'esm', entryFileNames: 'index.js' });
  await bundle.close();
  // Declarations of the one module, without type-checking the server behind it: the SDK's
  // TypeScript 5 (the root's TypeScript 7 has no JavaScript API), typed here as far as used.
  const ts = createRequire(join(root, 'sdk/package.json'))('typescript') as TypeScriptApi;
  const source = readFileSync(join(root, 'testing/src/index.ts'), 'utf8');
  const { outputText, diagnostics } = ts.transpileDeclaration(source, {
    fileName: 'index.ts',
    compilerOptions: { declaration: true, module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022 },
  });
  if (diagnostics?.length)
    throw new Error(
      `testing/src/index.ts: ${diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; ')}`,
    );
  writeFileSync(join(dir, 'dist/index.d.ts'), outputText);
  writePackage(
    dir,
    {
      name: testing.name,
      ...common,
      description: testing.description,
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
      types: './dist/index.d.ts',
      files: ['dist'],
      engines: { node: '>=24' },
      dependencies: { '@nubis/sdk': rootPackage.version, nubis: rootPackage.version },
    },
    readFileSync(join(root, 'docs/testing.md'), 'utf8'),
  );
  return pack(dir);
}

if (import.meta.main) {
  rmSync(packagesDir, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  const tarballs = [buildSdk(), await buildServer(), await buildTesting()];
  rmSync(stage, { recursive: true, force: true });
  for (const tarball of tarballs) console.log(relative(process.cwd(), tarball));
}
