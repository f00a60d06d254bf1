// Legacy v1 body shapes: the status envelope for success and for errors (the latter is our
// decision: the spec shows none), form-encoded request bodies, and the translation of the
// services' field names into the legacy form fields, so a 400 names the field the client sent.

import type { FastifyInstance } from 'fastify';
import type { ApiFormat, Problem } from '../../http/error-mapping.ts';
import { Invalid, type FieldProblem } from '../../platform/errors.ts';
import { ErrorEnvelope as ErrorEnvelopeSchema } from './schemas.ts';
import { addFormBodies } from '../../http/form-bodies.ts';

export interface Envelope {
  message: string;
  response_type: 'success';
  response_code: number;
}

export interface ErrorEnvelope {
  message: string;
  response_type: 'error';
  response_code: number;
  /** For a 400: one entry per bad form field (or path parameter). */
  fields?: FieldProblem[];
}

/**
 * Every failure is the status envelope with response_type `error`, response_code equal to the
 * real HTTP status (a client that checks either one sees the failure), and for a 400 the bad
 * fields, both listed and spelled out in the message.
 */
export const v1Format: ApiFormat = {
  error(problem: Problem): ErrorEnvelope {
    const body: ErrorEnvelope = { message: problem.reason, response_type: 'error', response_code: problem.status };
    if (problem.fields) {
      body.message = problem.fields.map((f) => `${f.field}: ${f.reason}`).join('; ');
      body.fields = problem.fields;
    }
    return body;
  },
  errorSchema: () => ErrorEnvelopeSchema,
};

/** The success envelope; HTTP 200 always, `responseCode` from the spec's per-operation table. */
export function envelope(message: string, responseCode: number): Envelope {
  return { message, response_type: 'success', response_code: responseCode };
}

export async function v1Setup(app: FastifyInstance): Promise<void> {
  addFormBodies(app);
}

/**
 * Runs a service call whose input was translated from legacy form fields, and renames the fields
 * of its 400 back (`{ server_id: 'SUBID' }`): the service speaks its own names, the client sent these.
 */
export async function withLegacyFields<T>(fields: Record<string, string>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Invalid)
      throw new Invalid(error.problems.map((p) => ({ field: fields[p.field] ?? p.field, reason: p.reason })));
    throw error;
  }
}
