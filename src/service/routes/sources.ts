/** Source health snapshot and single-signal lookup. */
import { createHash } from 'node:crypto';
import { route } from '../endpoint-routes';
import type { FastifyInstance } from 'fastify';
import { SIGNAL_ID_PATTERN, type HealthSnapshot } from '../../shared/service-schemas';
import { healthSnapshot } from '../feed/health-snapshot';
import { ServiceError } from '../http-errors';
import type { ServiceContext } from '../service-context';

export function registerSourceRoutes(app: FastifyInstance, context: ServiceContext): void {
  let cached: { etag: string; snapshot: HealthSnapshot; at: number } | null = null;

  route(app, 'getSourcesHealth', async (request, reply) => {
    // Computed at most once per max-age: within it every caller gets the same body and ETag.
    const now = context.now();
    if (!cached || now - cached.at >= context.healthMaxAgeS * 1000) {
      const snapshot = healthSnapshot(context.feed, context.store, context.sample, now);
      // The ETag covers the data, not generated_at, so an unchanged roster revalidates to 304.
      const { generated_at: _generatedAt, oracle: { updated_at: _updatedAt, ...oracle }, ...data } = snapshot;
      const etag = `"${createHash('sha1').update(JSON.stringify({ ...data, oracle })).digest('hex').slice(0, 20)}"`;
      cached = { etag, snapshot: cached?.etag === etag ? cached.snapshot : snapshot, at: now };
    }
    const etag = cached.etag;
    reply.header('cache-control', `max-age=${context.healthMaxAgeS}`).header('etag', etag);
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim() === etag)) {
      return reply.status(304).send();
    }
    return cached.snapshot;
  });

  route<{ Params: { id: string } }>(app, 'getSignal', async (request) => {
    const { id } = request.params;
    if (!SIGNAL_ID_PATTERN.test(id)) throw new ServiceError('invalid_request', 'Invalid field `id`: expected sig_ followed by 16 hex characters.');
    const signal = context.store.getSignal(id);
    if (!signal) throw new ServiceError('not_found', `No signal ${id}.`);
    const source = context.store.sourcesById.get(signal.source_id);
    if (!source) throw new ServiceError('internal', `Signal ${id} has no source.`);
    // Labelled with where it came from: fetched signals say `feed`, the synthetic sample `sample`;
    // their source likewise (`fetched` with its measured health, or `sample`).
    const entry = context.store.sourceEntry(source, context.now());
    if ((entry as { origin?: string }).origin === 'fetched') return { signal: { origin: 'sample', ...signal }, source: entry };
    if (context.sample === 'replay') return { signal: { origin: 'sample', ...signal }, source: { ...entry, origin: 'sample', simulated: true } };
    // The fixed snapshot is never fetched: its sources report no health (as in the snapshot,
    // where they are not listed), and nothing of theirs arrived in the last 24 hours.
    return {
      signal: { origin: 'sample', ...signal },
      source: { ...entry, origin: 'sample', health: null, health_reason: 'sample snapshot, not fetched: no health to report', items_24h: 0 },
    };
  });
}
