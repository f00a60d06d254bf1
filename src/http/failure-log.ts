// What the log says about a request that failed: the one rule every error handler (each API
// scope, the processors' pages, the root routes) follows, so every unexpected 5xx leaves one
// error line with the request id and the cause's stack, while its body stays `internal error`.

import type { FastifyRequest } from 'fastify';
import { DomainError } from '../platform/errors.ts';
import type { Problem } from './error-mapping.ts';

export function logFailure(request: FastifyRequest, error: unknown, problem: Problem): void {
  // Shedding load (busy: 503 with Retry-After) is routine and a dependency away is a warning:
  // both are answers the server chose. Anything else at 5xx is a fault: an error line with the stack.
  if (problem.status >= 500 && error instanceof DomainError)
    request.log[problem.retryAfterSeconds ? 'info' : 'warn']({ err: { message: error.message } }, 'request refused');
  else if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
  else if (!(error instanceof DomainError))
    request.log.info({ err: { message: (error as Error).message } }, 'request rejected');
}
