// Imported first by the test runners: every test file's process loads the server's sources
// (about 1,200 modules), and Node's compile cache keeps what it compiled (TypeScript stripped
// and V8 code) for the next one — about a third of the load's CPU (docs/benchmarks.md). The
// cache is keyed by each file's content, so an edited source is compiled afresh.

import { tmpdir } from 'node:os';
import { join } from 'node:path';

process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'node-compile-cache');
