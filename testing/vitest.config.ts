// Vitest runs the package's Vitest example (examples/*.vitest.ts); node:test runs the rest.
import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { include: ['examples/*.vitest.ts'] } });
