// The floor: the least work a correct authenticated read does on this stack, served beside Nubis
// in the same benchmark run. Fastify; the bearer token HMAC-SHA256'd with a server key; one
// prepared statement joining the token's digest to its account; the account's stored JSON
// (a body the size of account/info) decoded and sent. No hooks, no rate limit, no cache.
// FLOOR_DB: a SQLite file (seeded by bench/seed.ts, WAL) or a postgres:// URL (a pool of 10);
// FLOOR_KEY: the server key (hex) the seeded digests were made with.

import { createHmac } from 'node:crypto';
import Fastify from 'fastify';

const target = process.env.FLOOR_DB ?? '';
const key = Buffer.from(process.env.FLOOR_KEY ?? '', 'hex');
const statement = 'select a.body from floor_tokens t join floor_accounts a on a.id = t.account_id where t.digest = ';

/** The stored body of the account a digest names, as JSON text; undefined when none does. */
type Lookup = (digest: string) => Promise<string | undefined>;

async function lookup(): Promise<Lookup> {
  if (target.startsWith('postgres')) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: target, max: 10 });
    const text = `${statement}$1`;
    return async (digest) =>
      (await pool.query<{ body: string }>({ name: 'floor', text, values: [digest] })).rows[0]?.body;
  }
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(target);
  db.exec('pragma journal_mode = wal');
  const prepared = db.prepare(`${statement}?`);
  return async (digest) => (prepared.get(digest) as { body: string } | undefined)?.body;
}

const find = await lookup();
const app = Fastify({ logger: false });
app.get('/floor', async (request, reply) => {
  const header = request.headers.authorization;
  const token = header?.startsWith('Bearer ') ? header.slice(7) : '';
  const body = token ? await find(createHmac('sha256', key).update(token).digest('hex')) : undefined;
  if (body === undefined) return reply.code(401).send({ error: 'unauthorized' });
  return JSON.parse(body);
});
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`listening ${address}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
