// Builds the console into dist/: index.html plus content-hashed files under assets/, which
// Nubis serves at / (src/http/console-static.ts) with long-lived caching for the hashed files.

import { defineConfig } from 'vite';

export default defineConfig({
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', assetsDir: 'assets', target: 'es2022', modulePreload: { polyfill: false } },
  server: {
    proxy: Object.fromEntries(
      ['/v1.3', '/admin'].map((prefix) => [prefix, process.env.NUBIS_URL ?? 'http://127.0.0.1:8080']),
    ),
  },
});
