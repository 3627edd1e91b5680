// What a service's refusal means to the app: a status or error body as a typed BridgeError, Retry-After, redirects refused (split from api-client.ts).
import type { BridgeError } from '../../../shared/bridge-contract';
import { ErrorBody } from '../../../shared/service-schemas';
import { knownCode } from './ask-events';
import { readJson } from './response-bodies';

const CODE_BY_STATUS: Record<number, BridgeError['code']> = {
  400: 'invalid_request',
  401: 'unauthorized',
  402: 'payment_required',
  403: 'forbidden',
  404: 'not_found',
  405: 'invalid_request',
  408: 'timeout',
  409: 'invalid_request',
  410: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'invalid_request',
  429: 'rate_limited',
  451: 'forbidden',
  500: 'internal',
  501: 'unavailable',
  502: 'unavailable',
  503: 'unavailable',
  504: 'timeout',
};

/** What a status means to a user when the service's own body says nothing readable. */
const MESSAGE_BY_CODE: Partial<Record<BridgeError['code'], string>> = {
  payment_required: 'The service wants payment or a higher plan for this request.',
  unauthorized: 'The service needs a valid credential for this request.',
  forbidden: 'The credential is not allowed to do this.',
  not_found: 'The service does not have what was asked for.',
  rate_limited: 'The service asked the app to slow down.',
  unavailable: 'The service is unavailable right now.',
  timeout: 'The service timed out.',
};

/** A status the app has no word for still gets a sensible code: by its class, not `internal`. */
function codeForStatus(status: number): BridgeError['code'] {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? 'unavailable' : 'invalid_request');
}

/** `Retry-After` as seconds or an HTTP date; a past date means now; garbage gives null. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (!Number.isNaN(date) && /[a-z]/i.test(trimmed)) return Math.max(0, Math.ceil((date - now) / 1000));
  return null;
}

/** A refused request's error: the body's code and message when readable, else the status's (with Retry-After on 429/503). */
export async function errorFromResponse(response: Response, now: number): Promise<BridgeError> {
  const read = await readJson(response);
  const body = read.ok ? read.value : undefined;
  const parsed = ErrorBody.safeParse(body);
  // The body's code wins when the app knows it; otherwise the status decides (402 is not `internal`).
  const byStatus = codeForStatus(response.status);
  const fromBody = parsed.success ? knownCode(parsed.data.error) : null;
  const code = fromBody && (fromBody !== 'internal' || response.status === 500) ? fromBody : byStatus;
  // A flat `{message}` or `{error: "…"}` without the other half still says something useful.
  const record = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const message = parsed.success ? parsed.data.message : typeof record.message === 'string' ? record.message : typeof record.error === 'string' ? record.error : null;
  const error: BridgeError = {
    code,
    message: message ?? `${MESSAGE_BY_CODE[code] ?? 'The service refused the request.'} (HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''})`,
    status: response.status,
  };
  if (response.status === 429) {
    const retryAfterS = parseRetryAfter(response.headers.get('retry-after'), now);
    // No usable Retry-After: wait a capped default rather than hammering.
    error.retryAfterS = retryAfterS ?? 30;
  } else if (response.status === 503) {
    const retryAfterS = parseRetryAfter(response.headers.get('retry-after'), now);
    if (retryAfterS !== null) error.retryAfterS = retryAfterS;
  }
  return error;
}

/**
 * SECURITY: requests carry the credential, so a redirect is refused, not followed (fetch keeps
 * `X-API-Key` across origins). 304 is a cache answer, not a redirect.
 */
export function refuseRedirect(response: Response): BridgeError | null {
  const isRedirect = response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400 && response.status !== 304);
  if (!isRedirect) return null;
  void response.body?.cancel().catch(() => undefined);
  let where = 'another address';
  try {
    const location = response.headers.get('location');
    if (location) where = new URL(location, response.url || 'http://invalid/').origin;
  } catch {
    // An unparsable Location: say "another address".
  }
  return {
    code: 'bad_response',
    status: response.status,
    message: `The service answered with a redirect (${response.status}) to ${where}. The app does not follow redirects, so your credential was not sent there; check the service address in Settings.`,
  };
}
