// Typed errors: the error bodies of the v1.3 and operator APIs (`{errors: {response, reason}}`, or
// one entry per bad field on a 400) and the legacy envelope, as an Error a caller can catch and inspect.

/** One bad field of a 400 answer. */
export interface FieldError {
  field: string;
  reason: string;
}

/** A request Nubis refused (status 4xx or 5xx), with its parsed body. */
export class NubisError extends Error {
  override readonly name = 'NubisError';
  /** The HTTP status, e.g. 402 when the account is out of funds. */
  readonly status: number;
  /** The status line the body names, e.g. `404 Not Found` (empty when the body has none). */
  readonly response: string;
  /** The reason the body gives (for a 400: the fields and reasons joined). */
  readonly reason: string;
  /** The fields a 400 answer names; empty otherwise. */
  readonly fields: FieldError[];
  /** The body as it came, for anything the properties above leave out. */
  readonly body: unknown;
  /** `Retry-After` in seconds on a 429 or 503, when sent. */
  readonly retryAfterSeconds: number | null;

  constructor(status: number, body: unknown, headers?: { get(name: string): string | null }) {
    const { response, reason, fields } = describe(body);
    super(`${response || status}${reason ? `: ${reason}` : ''}`);
    this.status = status;
    this.response = response;
    this.reason = reason;
    this.fields = fields;
    this.body = body;
    const retryAfter = headers?.get('retry-after');
    this.retryAfterSeconds = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : null;
  }
}

function describe(body: unknown): { response: string; reason: string; fields: FieldError[] } {
  const errors = (body as { errors?: unknown } | null)?.errors;
  if (Array.isArray(errors)) {
    const fields = errors
      .filter((entry): entry is FieldError => typeof entry?.field === 'string' && typeof entry?.reason === 'string')
      .map(({ field, reason }) => ({ field, reason }));
    return {
      response: '400 Bad Request',
      reason: fields.map((entry) => `${entry.field}: ${entry.reason}`).join('; '),
      fields,
    };
  }
  if (errors && typeof errors === 'object') {
    const { response, reason } = errors as { response?: unknown; reason?: unknown };
    return {
      response: typeof response === 'string' ? response : '',
      reason: typeof reason === 'string' ? reason : '',
      fields: [],
    };
  }
  // The legacy v1 error envelope: {message, response_type: 'error', response_code, fields?}.
  const legacy = body as { response_type?: unknown; message?: unknown; fields?: unknown } | null;
  if (legacy?.response_type === 'error' && typeof legacy.message === 'string')
    return {
      response: '',
      reason: legacy.message,
      fields: Array.isArray(legacy.fields)
        ? legacy.fields.filter(
            (entry): entry is FieldError => typeof entry?.field === 'string' && typeof entry?.reason === 'string',
          )
        : [],
    };
  return { response: '', reason: typeof body === 'string' ? body : '', fields: [] };
}

/**
 * The data of a call, or a thrown `NubisError`:
 * `const server = await unwrap(client.GET('/v1.3/server/info/{server_id}', { params: { path: { server_id } } }))`.
 */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new NubisError(response.status, error, response.headers);
  return data as T;
}
