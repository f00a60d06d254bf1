// The baseline: a bare Fastify JSON route on the same machine, served in the same benchmark run.

import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/bare', async () => ({ hello: 'world', now: new Date().toISOString() }));
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`listening ${address}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
