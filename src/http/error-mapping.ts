// The one place that turns an error into an HTTP status and a problem description.
// Each API version then renders the problem in its own body shape (see ApiFormat).

import type { FastifyError } from 'fastify';
import { RateLimited } from './rate-limit.ts';
import {
  Conflict,
  DomainError,
  Forbidden,
  Invalid,
  NotFound,
  PaymentRequired,
  TooManyRequests,
  Unauthorized,
  Unavailable,
  type FieldProblem,
} from '../platform/errors.ts';

// node:http's values through getBuiltinModule, not `import`: an ESM import of node:http builds
// its module facade, which loads Node's bundled undici (~30 ms of CPU at every start) for
// exports Nubis never uses. test/architecture.test.ts holds every file to it.
const { STATUS_CODES } = process.getBuiltinModule('node:http');

export interface Problem {
  status: number;
  reason: string;
  /** For 400: one entry per bad field. */
  fields?: FieldProblem[];
  retryAfterSeconds?: number;
  /** For 429: the size of the budget that ran out (RateLimit-Limit). */
  rateLimit?: number;
  /** For 405: the methods the path does answer. */
  allow?: string[];
}

/** How an API version renders problems; each adapter folder provides one. */
export interface ApiFormat {
  error(problem: Problem): unknown;
  /** The schema of `error`'s body for a status, as the OpenAPI document shows it. */
  errorSchema(status: number): unknown;
}

export function statusLine(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? 'Error'}`;
}

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
  parentSchema?: { description?: string };
}

/** Ajv errors to one problem per field: the first complaint about a field wins. */
function validationProblems(errors: AjvError[], context: string | undefined): FieldProblem[] {
  const byField = new Map<string, string>();
  for (const error of errors) {
    let field = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
    let reason: string;
    if (error.keyword === 'required') {
      field = [field, String(error.params.missingProperty)].filter(Boolean).join('.');
      reason = 'missing required field';
    } else if (error.keyword === 'type') {
      reason = `wrong data type: must be ${String(error.params.type)}`;
    } else if (error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      reason = 'wrong data type or value';
    } else if (error.keyword === 'const' || error.keyword === 'enum') {
      const allowed = (error.params.allowedValues ?? [error.params.allowedValue]) as unknown[];
      reason = `must be ${allowed.map((v) => JSON.stringify(v)).join(' or ')}`;
    } else if (error.parentSchema?.description) {
      reason = `bad value: must be ${error.parentSchema.description}`;
    } else {
      reason = error.message ? `bad value: ${error.message}` : 'bad value';
    }
    if (!field) field = context === 'body' ? 'body' : (context ?? 'request');
    if (!byField.has(field)) byField.set(field, reason);
  }
  return [...byField].map(([field, reason]) => ({ field, reason }));
}

/** A lost or refused database connection: answer 503 and let the client retry. */
export function isStorageOutage(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  if (!e) return false;
  const code = e.code ?? '';
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'].includes(code)) return true;
  // PostgreSQL classes 08 (connection exception) and 57P (operator intervention: admin shutdown, crash).
  if (/^08...$/.test(code) || /^57P0[1-4]$/.test(code)) return true;
  const message = e.message ?? '';
  // 57P03 and "not currently accepting connections" (55000): the server refuses new sessions for now.
  if (code === '57P03') return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|database is locked|not currently accepting connections|the database system is (starting up|shutting down)/i.test(
    message,
  );
}

export function toProblem(error: unknown): Problem {
  if (error instanceof DomainError) {
    if (error instanceof Invalid) return { status: 400, reason: error.message, fields: error.problems };
    if (error instanceof Unauthorized) return { status: 401, reason: error.message };
    if (error instanceof PaymentRequired) return { status: 402, reason: error.message };
    if (error instanceof Forbidden) return { status: 403, reason: error.message };
    if (error instanceof NotFound) return { status: 404, reason: error.message };
    if (error instanceof Conflict) return { status: 409, reason: error.message };
    if (error instanceof TooManyRequests)
      return {
        status: 429,
        reason: error.message,
        retryAfterSeconds: error.retryAfterSeconds,
        rateLimit: error instanceof RateLimited ? error.limit : undefined,
      };
    if (error instanceof Unavailable)
      return { status: 503, reason: error.message, retryAfterSeconds: error.retryAfterSeconds };
  }
  const fastifyError = error as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (fastifyError?.validation) {
    const fields = validationProblems(fastifyError.validation, fastifyError.validationContext);
    return { status: 400, reason: 'bad request', fields };
  }
  if (isStorageOutage(error)) return { status: 503, reason: 'storage unavailable, retry in a few moments' };
  // A reference removed by a concurrent request between the look-up and the write (PostgreSQL
  // foreign_key_violation; SQLite runs one transaction at a time): the thing named is gone.
  if ((error as { code?: string } | null)?.code === '23503')
    return { status: 404, reason: 'a resource the request names was removed meanwhile' };
  const status = fastifyError?.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // Body-level failures from Fastify (malformed JSON, wrong content type, oversized body) are a 400 naming the body.
    const reasons: Record<string, string> = {
      FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported Content-Type: send application/json',
      FST_ERR_CTP_BODY_TOO_LARGE: 'request body too large',
      FST_ERR_CTP_INVALID_JSON_BODY: 'malformed JSON body',
      FST_ERR_CTP_EMPTY_JSON_BODY: 'empty JSON body',
      FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
    };
    const reason =
      reasons[fastifyError.code] ?? (error instanceof SyntaxError ? 'malformed JSON body' : fastifyError.message);
    return { status: 400, reason, fields: [{ field: 'body', reason }] };
  }
  return { status: 500, reason: 'internal error' };
}
