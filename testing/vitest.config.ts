// Vitest runs the package's Vitest example (examples/*.vitest.ts); node:test runs the rest.
// Hooks get a minute, as node:test's do here: on a machine busy with other suites, Vitest's own
// start and the first startNubis() in beforeAll went past Vitest's default 10 s.
import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { include: ['examples/*.vitest.ts'], hookTimeout: 60_000 } });
