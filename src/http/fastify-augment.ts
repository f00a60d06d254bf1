// What Nubis adds to Fastify's types: each route's declared access and rate limits, and
// the actor that authentication attached to the request.

import type { Actor } from '../platform/context.ts';
import type { RateLimitName } from './rate-limit.ts';

/**
 * Who may call a route: anyone, an account's token, or the operator's ADMIN_TOKEN; `emulator`: the
 * operator, and only where emulator tools are on (config.ts, emulatorToolsOn).
 */
export type Access = 'public' | 'account' | 'operator' | 'emulator';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    rateLimits?: RateLimitName[];
  }
  interface FastifyRequest {
    actor: Actor | null;
  }
}
