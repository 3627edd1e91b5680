/** Results: errors are values at the boundary (docs/decisions/conventions.md §10). */
import type { ServiceErrorCode } from './service-schemas';

export type BridgeErrorCode =
  | ServiceErrorCode
  | 'payment_required'
  | 'network'
  | 'timeout'
  | 'aborted'
  | 'bad_response'
  | 'invalid_argument'
  | 'unknown_method'
  | 'keychain_unavailable'
  /** Issue 47: the source's host is on the analyst's private network; fetching it needs their yes. */
  | 'private_host';

export interface BridgeError {
  code: BridgeErrorCode;
  message: string;
  /** Seconds until the request may be sent again (429). */
  retryAfterS?: number;
  /** HTTP status, when the error came from the service. */
  status?: number;
  /** `private_host`: the host the analyst is asked about. */
  host?: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: BridgeError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = (error: BridgeError): Result<never> => ({ ok: false, error });
