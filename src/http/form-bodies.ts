// Form bodies (application/x-www-form-urlencoded) as @fastify/formbody parses them, for the scopes
// that take them (the legacy API, the simulated payment page's forms).

import type { FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';

/**
 * Adds @fastify/formbody's parser to `app` itself by calling the plugin (it only adds a content-type
 * parser, and is declared to share its instance, so this is what registering it does). Registered
 * as a plugin, Fastify would first check the Fastify version the plugin declares with semver, whose
 * first range check compiles semver's patterns: a few milliseconds of every start for nothing.
 */
export function addFormBodies(app: FastifyInstance): void {
  formbody(app, {}, (error) => {
    if (error) throw error;
  });
}
