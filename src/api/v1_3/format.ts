// The v1.3 body shapes for success and failure (spec: Errors).

import type { ApiFormat, Problem } from '../../http/error-mapping.ts';
import { statusLine } from '../../http/error-mapping.ts';
import { ErrorObject, FieldErrors } from './schemas.ts';

export const v13Format: ApiFormat = {
  error(problem: Problem) {
    if (problem.status === 400) return { errors: problem.fields ?? [{ field: 'body', reason: problem.reason }] };
    return { errors: { response: statusLine(problem.status), reason: problem.reason } };
  },
  errorSchema: (status) => (status === 400 ? FieldErrors : ErrorObject),
};

/** The success object of a 202 (or 200) answer. */
export function success(status: number, reason = ''): { success: { response: string; reason: string } } {
  return { success: { response: statusLine(status), reason } };
}

/** Answers 202 with the success object: the change is accepted (most v1.3 changes answer so). */
export function accepted(reply: { code(status: 202): unknown }): ReturnType<typeof success> {
  reply.code(202);
  return success(202);
}
