/**
 * Health computed from what happened, never simulated. The rule is stated here, in the snapshot
 * (`health_rule`) and in docs/feed.md, and the facts behind it travel with each source.
 */
import type { SourceHealth } from '../../shared/service-schemas';
import type { SourceState } from './feed-repository';

export const HEALTH_RULE =
  'healthy: the last fetch succeeded in full and the last success is within 2 × cadence; ' +
  'down: 3 or more consecutive failures, or no success within 6 × cadence; ' +
  'degraded: anything else (a failed or partial last fetch, a late success, or not fetched yet).';

/** `since`: when the source was added (a source that never succeeded is measured from then). */
export function healthOf(state: SourceState, cadenceS: number, now: number, since: string): { health: SourceHealth; reason: string | null } {
  const cadenceMs = cadenceS * 1000;
  const sinceSuccess = now - Date.parse(state.last_success_at ?? since);
  if (state.consecutive_failures >= 3) return { health: 'down', reason: `${state.consecutive_failures} failed fetches in a row${state.last_error ? `; last: ${state.last_error.message}` : ''}` };
  if (state.last_fetch_at && sinceSuccess > 6 * cadenceMs) {
    return { health: 'down', reason: state.last_success_at ? `no successful fetch for more than 6 × its cadence` : `never fetched successfully${state.last_error ? `; last: ${state.last_error.message}` : ''}` };
  }
  if (!state.last_fetch_at) return { health: 'degraded', reason: 'not fetched yet' };
  if (state.consecutive_failures > 0) return { health: 'degraded', reason: state.last_error ? `last fetch failed: ${state.last_error.message}` : 'last fetch failed' };
  if (state.last_partial?.kind === 'malformed_xml') return { health: 'degraded', reason: `the last fetch was ${state.last_partial.message}` };
  if (state.last_partial) return { health: 'degraded', reason: `last fetch worked only in part: ${state.last_partial.message}` };
  if (sinceSuccess > 2 * cadenceMs) return { health: 'degraded', reason: 'the last success is older than 2 × its cadence' };
  return { health: 'healthy', reason: null };
}
