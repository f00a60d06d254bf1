// /docs, the browsable reference (@fastify/swagger-ui), made on its first request: swagger-ui,
// @fastify/static and their dependencies (some 60 modules) are not loaded at start. The app
// declares swagger-ui's own paths, and each answers through one small Fastify instance that
// carries swagger-ui and the app's document (@fastify/swagger's static mode, which gives the
// same JSON and YAML forms).

import type { StaticDocumentSpec } from '@fastify/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OpenapiDocument } from './openapi-document.ts';

const prefix = '/docs';
/** What @fastify/swagger-ui serves under its prefix (its `/` is both /docs and /docs/). */
const paths = ['', '/', '/static/index.html', '/static/swagger-initializer.js', '/json', '/yaml', '/static/*'];
/** Headers of the connection, not of the answer: the app's own connection sets them. */
const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date']);

async function docsInstance(openapi: OpenapiDocument): Promise<FastifyInstance> {
  const [{ default: Fastify }, { default: swagger }, { default: swaggerUi }] = await Promise.all([
    import('fastify'),
    import('@fastify/swagger'),
    import('@fastify/swagger-ui'),
  ]);
  const docs = Fastify({ logger: false });
  // The app's document is OpenAPI 3.1, which the static mode's type does not name.
  const document = (await openapi.json()) as unknown as StaticDocumentSpec['document'];
  await docs.register(swagger, { mode: 'static', specification: { document } });
  await docs.register(swaggerUi, { routePrefix: prefix });
  await docs.ready();
  return docs;
}

/** Declares /docs and its pages; the first request to one of them loads swagger-ui. */
export function docsPages(app: FastifyInstance, openapi: OpenapiDocument): void {
  let docs: Promise<FastifyInstance> | undefined;
  const answer = async (request: FastifyRequest, reply: FastifyReply) => {
    docs ??= docsInstance(openapi).catch((error: unknown) => {
      docs = undefined;
      throw error;
    });
    // A HEAD is answered as its GET, whose body the app then leaves out (as for any GET route).
    const page = await (await docs).inject({ method: 'GET', url: request.url, headers: request.headers });
    // A page swagger-ui does not have is the app's 404, as it was when swagger-ui was mounted.
    if (page.statusCode === 404) return reply.callNotFound();
    for (const [name, value] of Object.entries(page.headers))
      if (value !== undefined && !hopByHop.has(name)) reply.header(name, value);
    reply.code(page.statusCode);
    // An empty answer (a redirect, a 304) stays without a body, and so without a content type.
    return page.rawPayload.length ? reply.send(page.rawPayload) : reply.send();
  };
  for (const path of paths) app.get(`${prefix}${path}`, { schema: { hide: true } }, answer);
}
