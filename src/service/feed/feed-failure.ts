/** A fetch or parse failure in words a person understands; it lands in the source's health. */
export type FailureKind =
  | 'timeout'
  | 'connection_reset'
  | 'connection_refused'
  | 'dns'
  | 'tls'
  | 'network'
  | 'http_error'
  | 'not_found'
  | 'gone'
  | 'rate_limited'
  | 'unavailable'
  | 'server_error'
  | 'redirect_loop'
  | 'too_many_redirects'
  | 'redirect_blocked'
  | 'blocked_address'
  | 'robots_disallowed'
  | 'body_too_large'
  | 'decompressed_too_large'
  | 'bad_encoding'
  | 'entity_declarations'
  | 'malformed_xml'
  | 'not_a_feed'
  | 'no_items'
  | 'unreadable_file';

export class FeedFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    /** Seconds the server asked us to wait (Retry-After). */
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
}

export function asFeedFailure(error: unknown): FeedFailure {
  if (error instanceof FeedFailure) return error;
  return new FeedFailure('network', error instanceof Error ? error.message : String(error));
}
