// Legacy v1 body shapes: the status envelope for success and for errors (the latter is our
// decision: the spec shows none), and form-encoded request bodies.

import type { FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import type { ApiFormat, Problem } from '../../http/error-mapping.ts';

export interface Envelope {
  message: string;
  response_type: 'success' | 'error';
  response_code: number;
}

export const v1Format: ApiFormat = {
  error(problem: Problem): Envelope & { fields?: { field: string; reason: string }[] } {
    const body: Envelope & { fields?: { field: string; reason: string }[] } = { message: problem.reason, response_type: 'error', response_code: problem.status };
    if (problem.fields) {
      body.message = problem.fields.map((f) => `${f.field}: ${f.reason}`).join('; ');
      body.fields = problem.fields;
    }
    return body;
  },
};

export function envelope(message: string, responseCode: number): Envelope {
  return { message, response_type: 'success', response_code: responseCode };
}

export async function v1Setup(app: FastifyInstance): Promise<void> {
  await app.register(formbody);
}
