import type { ServiceErrorCode } from '../shared/service-schemas';

export const STATUS_BY_CODE: Record<ServiceErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  /** Follow: the tier's follow count is used up. */
  limit_reached: 403,
  not_found: 404,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /** Predict: the entity's metric has too few periods to forecast. */
  insufficient_history: 422,
  /** Sources: the URL was fetched but gave no items (or could not be read); the message says why. */
  source_unreadable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
};

/** An error a route throws on purpose; the error handler turns it into `{error, message}`. */
export class ServiceError extends Error {
  constructor(
    readonly code: ServiceErrorCode,
    message: string,
    readonly retryAfterS?: number,
  ) {
    super(message);
  }

  get status(): number {
    return STATUS_BY_CODE[this.code];
  }
}

/**
 * A credential was presented and refused (unknown, expired, revoked, signed by another key):
 * 401 with `WWW-Authenticate: Bearer error="invalid_token"` on every route (docs/decisions/design.md §3).
 */
export class InvalidCredentialError extends ServiceError {
  constructor(message: string) {
    super('unauthorized', message);
  }
}

/** Both `Authorization` and `X-API-Key` sent: RFC 6750 §3.1 says 400 `invalid_request`. */
export class TwoCredentialsError extends ServiceError {
  constructor() {
    super('invalid_request', 'Send one credential: either `Authorization: Bearer …` or `X-API-Key`, not both.');
  }
}

export const REALM = 'retail-signal';

/** The RFC 6750 challenge for an error, or null when it needs none. */
export function authenticateChallenge(error: ServiceError): string | null {
  // error_description allows printable ASCII except `"` and `\`.
  const description = (text: string): string => text.replace(/[^\x20-\x7e]|["\\]/g, '').slice(0, 200);
  if (error instanceof InvalidCredentialError) {
    return `Bearer realm="${REALM}", error="invalid_token", error_description="${description(error.message)}"`;
  }
  if (error instanceof TwoCredentialsError) return `Bearer realm="${REALM}", error="invalid_request", error_description="${description(error.message)}"`;
  if (error.code === 'unauthorized') return `Bearer realm="${REALM}"`;
  return null;
}
