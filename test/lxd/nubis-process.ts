// `nubis serve` as a process of its own on the real driver, on a data directory shared across
// processes, so that a suite can kill Nubis (SIGKILL, mid-job) and start a new one on the same
// database; with the test harness's request helpers.

import { type ChildProcess, spawn } from 'node:child_process';
import type { HttpResult, JsonBody, RequestOptions, TestInstance } from '../support/instance.ts';
import { lxdUrl, writeTestCatalog } from './support.ts';

const root = new URL('../../', import.meta.url).pathname;
const adminToken = 'seam-admin-token-0123456789';
const catalog = process.env.LXD_TEST_CATALOG ?? writeTestCatalog();

/** A `nubis serve` process on the shared data directory, with the harness's request helpers. */
export interface Nubis {
  child: ChildProcess;
  exited: Promise<number | null>;
  client: TestInstance;
}

export async function startNubis(dataDir: string): Promise<Nubis> {
  const child = spawn(process.execPath, ['bin/nubis.ts', 'serve'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      REDIS_URL: '',
      ADMIN_TOKEN: adminToken,
      CLOCK: 'system',
      SWEEPS: 'false',
      LOG_LEVEL: 'info',
      COMPUTE_DRIVER: 'lxd',
      LXD_URL: lxdUrl,
      CATALOG_FILE: catalog,
      COMPUTE_RECONCILE_SECONDS: '1',
      COMPUTE_USAGE_SECONDS: '1',
      COMPUTE_JOB_CONCURRENCY: '4',
      PASSWORD_HASH_COST: '12',
      RATE_REGISTER_PER_MINUTE: '100000',
      RATE_LOGIN_PER_MINUTE: '100000',
      RATE_ACTIVATE_PER_MINUTE: '100000',
      KEEP_ALIVE_TIMEOUT_MS: '600000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening at (\S+?)["\s]/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => reject(new Error(`nubis exited (${code}) before listening: ${output.slice(-2000)}`)));
  });
  async function request<T = JsonBody>(method: string, path: string, options: RequestOptions = {}) {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(url + path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T, headers: response.headers };
  }
  const client = {
    url,
    request,
    admin: <T = JsonBody>(method: string, path: string, body?: unknown): Promise<HttpResult<T>> =>
      request<T>(method, path, { token: adminToken, body }),
  } as unknown as TestInstance;
  return { child, exited, client };
}

export async function stopNubis(nubis: Nubis, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  nubis.child.kill(signal);
  await nubis.exited;
}
