// A real PowerDNS Authoritative (Debian's pdns-server with pdns-backend-sqlite3) for one test
// file: its own config dir and SQLite database, its DNS and HTTP API on free 127.0.0.1 ports,
// stopped (and started again on the same ports and data) at will; and `dig` to ask it.

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from './ports.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';

export const pdnsServerPath = process.env.PDNS_SERVER_PATH ?? '/usr/sbin/pdns_server';
const schemaPath = '/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql';
const run = promisify(execFile);

/** Why the suite cannot run here (pdns-server, its SQLite backend or dig missing), or null. */
export function powerDnsMissing(): string | null {
  if (!existsSync(pdnsServerPath)) return `pdns_server not found at ${pdnsServerPath} (apt-get install pdns-server)`;
  if (!existsSync(schemaPath)) return `${schemaPath} not found (apt-get install pdns-backend-sqlite3)`;
  if (!existsSync('/usr/bin/dig')) return 'dig not found (apt-get install bind9-dnsutils)';
  return null;
}

export interface PowerDns {
  apiUrl: string;
  apiKey: string;
  dnsPort: number;
  /** `dig -x address +short` against it: the answer's lines (CNAMEs first), empty when none. */
  reverse(address: string): Promise<string[]>;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startPowerDns(): Promise<PowerDns> {
  const dir = mkdtempSync(join(tmpdir(), 'nubis-pdns-'));
  const database = new DatabaseSync(join(dir, 'pdns.sqlite3'));
  database.exec(readFileSync(schemaPath, 'utf8'));
  database.close();
  const [dnsPort, apiPort] = [await freePort(), await freePort()];
  const apiKey = 'test-pdns-key';
  writeFileSync(
    join(dir, 'pdns.conf'),
    [
      'launch=gsqlite3',
      `gsqlite3-database=${join(dir, 'pdns.sqlite3')}`,
      'api=yes',
      `api-key=${apiKey}`,
      'webserver=yes',
      'webserver-address=127.0.0.1',
      `webserver-port=${apiPort}`,
      'webserver-allow-from=127.0.0.0/8',
      'local-address=127.0.0.1',
      `local-port=${dnsPort}`,
      'daemon=no',
      'guardian=no',
      `socket-dir=${dir}`,
      // No look-up of PowerDNS's security status: no outside network here.
      'security-poll-suffix=',
      // Answers straight from the database: a PTR changed through the API shows at once.
      'cache-ttl=0',
      'negquery-cache-ttl=0',
      'query-cache-ttl=0',
      'zone-cache-refresh-interval=0',
      '',
    ].join('\n'),
  );
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  let child: ChildProcess | null = null;

  async function start(): Promise<void> {
    const started = spawn(pdnsServerPath, [`--config-dir=${dir}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    child = started;
    let log = '';
    started.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
    });
    // Ready once it says so in its log (the API and DNS listeners are up by then).
    await new Promise<void>((resolve, reject) => {
      const onData = () => {
        if (log.includes('Done launching threads')) {
          started.stderr?.off('data', onData);
          resolve();
        }
      };
      started.stderr?.on('data', onData);
      started.once('exit', (code) => reject(new Error(`pdns_server exited (${code}) before it was ready:\n${log}`)));
    });
  }

  async function stop(): Promise<void> {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  }

  await start();
  return {
    apiUrl,
    apiKey,
    dnsPort,
    async reverse(address) {
      const { stdout } = await run('dig', ['-x', address, '@127.0.0.1', '-p', String(dnsPort), '+short', '+tries=1']);
      return stdout.split('\n').filter(Boolean);
    },
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
