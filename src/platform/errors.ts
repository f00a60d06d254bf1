// Typed domain errors thrown by services. They know nothing of HTTP; each API adapter
// maps them to its own status and body shape (src/http/error-mapping.ts).

export interface FieldProblem {
  field: string;
  reason: string;
}

export class DomainError extends Error {
  override name = 'DomainError';
}

/** Bad input: one entry per offending field. */
export class Invalid extends DomainError {
  override name = 'Invalid';
  readonly problems: FieldProblem[];
  constructor(field: string | FieldProblem[], reason?: string) {
    const problems = typeof field === 'string' ? [{ field, reason: reason ?? 'invalid value' }] : field;
    super(problems.map((p) => `${p.field}: ${p.reason}`).join('; '));
    this.problems = problems;
  }
}

export class Unauthorized extends DomainError {
  override name = 'Unauthorized';
  constructor(message = 'authentication required: send a valid token as Authorization: Bearer <token>') {
    super(message);
  }
}

export class PaymentRequired extends DomainError {
  override name = 'PaymentRequired';
  constructor(message = 'not enough funds to create the resource') {
    super(message);
  }
}

export class Forbidden extends DomainError {
  override name = 'Forbidden';
  constructor(message = 'the account lacks permission for this operation') {
    super(message);
  }
}

/**
 * A per-account limit refuses one more of a resource: a 403 like any refusal for the account.
 * `limit` names the limit, so an adapter can word it its own way (the legacy API has its own text).
 */
export class LimitReached extends Forbidden {
  override name = 'LimitReached';
  readonly limit: string;
  readonly maximum: number;
  constructor(limit: string, maximum: number, message: string) {
    super(message);
    this.limit = limit;
    this.maximum = maximum;
  }
}

export class NotFound extends DomainError {
  override name = 'NotFound';
  constructor(what = 'resource') {
    super(`${what} not found, check the id or uuid`);
  }
}

/** The resource exists but is in a state that refuses the operation. */
export class Conflict extends DomainError {
  override name = 'Conflict';
}

export class TooManyRequests extends DomainError {
  override name = 'TooManyRequests';
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number, message = 'rate limit exceeded, retry in a few moments') {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Storage or another dependency is out of reach; the client may retry. */
export class Unavailable extends DomainError {
  override name = 'Unavailable';
  /** When set, the answer's Retry-After. */
  readonly retryAfterSeconds: number | undefined;
  constructor(message = 'service temporarily unavailable, retry in a few moments', retryAfterSeconds?: number) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
