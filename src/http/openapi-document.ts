// The served OpenAPI document, built when it is first asked for: @fastify/swagger and the YAML
// library it loads (some 100 modules) stay out of the start. The app records its routes as they
// are declared, where @fastify/swagger would; the first call declares the same routes, schemas
// and all, on a small Fastify instance that carries @fastify/swagger with the app's options, and
// keeps its document. Same routes, same options, same plugin: the same document.

import type { SwaggerOptions } from '@fastify/swagger';
import type { FastifyInstance, RouteOptions } from 'fastify';

export interface OpenapiDocument {
  /** The document (GET /openapi.json). */
  json(): Promise<Record<string, unknown>>;
  /** The same document as YAML (/docs/yaml). */
  yaml(): Promise<string>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's OpenAPI document, built on first use. */
    openapi: OpenapiDocument;
  }
}

/** Only the document is read from the routes: no request is answered, nothing is validated. */
const unused = async () => undefined;

async function documenter(routes: RouteOptions[], options: SwaggerOptions): Promise<FastifyInstance> {
  const [{ default: Fastify }, { default: swagger }] = await Promise.all([
    import('fastify'),
    import('@fastify/swagger'),
  ]);
  // HEAD routes were declared by the app (or made by Fastify for each GET) and are replayed as
  // they were; @fastify/swagger leaves them out of the document either way.
  const documenting = Fastify({ exposeHeadRoutes: false });
  documenting.setValidatorCompiler(() => () => true);
  documenting.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await documenting.register(swagger, options);
  for (const route of routes)
    documenting.route({
      method: route.method,
      url: route.url,
      schema: route.schema,
      config: route.config,
      handler: unused,
      ...(route.links === undefined ? {} : { links: route.links }),
    });
  await documenting.ready();
  return documenting;
}

/**
 * Records the routes declared on `app` from now on (call it where @fastify/swagger would be
 * registered) and answers their document on demand.
 */
export function openapiDocument(app: FastifyInstance, options: SwaggerOptions): OpenapiDocument {
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    routes.push(route);
  });
  let built: Promise<FastifyInstance> | undefined;
  const build = () => {
    built ??= documenter(routes, options).catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    return built;
  };
  return {
    json: async () => (await build()).swagger() as unknown as Record<string, unknown>,
    yaml: async () => (await build()).swagger({ yaml: true }),
  };
}

const operationsOfDocument = new WeakMap<OpenapiDocument, Promise<DocumentedOperation[]>>();

/** One operation of the document: where it is served and the statuses it documents (its responses). */
export interface DocumentedOperation {
  id: string;
  /** Upper case. */
  method: string;
  /** As the document writes it: `/v1.3/server/{server_id}`. */
  path: string;
  statuses: ReadonlySet<number>;
}

/**
 * Every operation of the document, with its documented statuses: what a fault rule may answer on
 * it (the fault hook reads the same responses from the route's schema).
 */
export function documentedOperations(document: OpenapiDocument): Promise<DocumentedOperation[]> {
  let operations = operationsOfDocument.get(document);
  if (!operations) {
    operations = document.json().then((json) => {
      const found: DocumentedOperation[] = [];
      const paths = (json.paths ?? {}) as Record<string, Record<string, { operationId?: string; responses?: object }>>;
      for (const [path, item] of Object.entries(paths))
        for (const [method, operation] of Object.entries(item)) {
          if (!operation?.operationId || !operation.responses) continue;
          const statuses = new Set(Object.keys(operation.responses).map(Number).filter(Number.isInteger));
          found.push({ id: operation.operationId, method: method.toUpperCase(), path, statuses });
        }
      return found;
    });
    operationsOfDocument.set(document, operations);
  }
  return operations;
}
