/**
 * `GET /api/v1/discover`: search and browse signals (docs/decisions/design.md §3). Anonymous callers allowed:
 * 60 requests / 60 s per IP, per user when authenticated. Without `q` the newest come first
 * and the cursor is a position in time (stable while live signals arrive); with `q` the
 * order is relevance and the cursor an offset into the ranked results.
 */
import type { FastifyInstance } from 'fastify';
import { route } from '../endpoint-routes';
import { z } from 'zod';
import { SIGNAL_ID_PATTERN } from '../../shared/service-schemas';
import { DISCOVER_MAX_LIMIT, type DiscoverPage } from '../../shared/surface-schemas';
import type { CorpusSignal } from '../world/signal-types';
import { discoverItem, signalPredicate } from '../follows/signal-query';
import type { SignalTimeline } from '../follows/signal-timeline';
import { ServiceError } from '../http-errors';
import { invalidRequest, type ServiceContext } from '../service-context';
import type { SurfaceLimiter } from '../surface-limits';

/** How far down the relevance ranking a `q` search pages. */
const MAX_RANKED = 1_000;

const text = z.string().trim().min(1).max(200).optional();
const instant = z
  .string()
  .trim()
  .refine((value) => !Number.isNaN(Date.parse(value)), 'expected an ISO 8601 date or time')
  .optional();

const DiscoverQuery = z.object({
  q: z.string().trim().max(500).optional(),
  id: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((value) => (value === undefined ? undefined : [value].flat().flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean)))
    .refine((ids) => ids === undefined || (ids.length <= DISCOVER_MAX_LIMIT && ids.every((id) => SIGNAL_ID_PATTERN.test(id))), 'expected sig_ followed by 16 hex characters (at most 100 ids)'),
  entity: text,
  segment: text,
  city: text,
  source: text,
  kind: text,
  since: instant,
  until: instant,
  limit: z.coerce.number().int().min(1).max(DISCOVER_MAX_LIMIT).default(20),
  cursor: z.string().max(200).optional(),
});

type Cursor = { after: { published_at: string; id: string } } | { offset: number };

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(value: string, ranked: boolean): Cursor {
  try {
    const cursor = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Cursor;
    if (ranked && 'offset' in cursor && Number.isInteger(cursor.offset) && cursor.offset >= 0) return cursor;
    if (!ranked && 'after' in cursor && typeof cursor.after?.published_at === 'string' && typeof cursor.after.id === 'string') return cursor;
  } catch {
    // Falls through to the error below.
  }
  throw new ServiceError('invalid_request', 'Invalid field `cursor`: pass back the `next_cursor` of the previous page with the same filters.');
}

export function registerDiscoverRoutes(app: FastifyInstance, context: ServiceContext, limiter: SurfaceLimiter, timeline: SignalTimeline): void {
  route(app, 'discover', async (request, reply): Promise<DiscoverPage> => {
    limiter.enforce('discover', context.identify(request).key, reply);
    const parsed = DiscoverQuery.safeParse(request.query);
    if (!parsed.success) throw invalidRequest(parsed.error);
    const query = parsed.data;
    const filter = {
      ids: query.id,
      entity: query.entity,
      segment: query.segment,
      city: query.city,
      source: query.source,
      kind: query.kind,
      sinceMs: query.since ? Date.parse(query.since) : undefined,
      untilMs: query.until ? Date.parse(query.until) : undefined,
    };
    const keep = signalPredicate(context.store, filter);
    const now = context.now();
    const ranked = Boolean(query.q);
    const cursor = query.cursor ? decodeCursor(query.cursor, ranked) : null;

    let page: CorpusSignal[];
    let next: Cursor | null = null;
    if (ranked) {
      const offset = cursor && 'offset' in cursor ? cursor.offset : 0;
      const hits = context.store.index.search(query.q!, { now, limit: MAX_RANKED, until: now }).map((hit) => hit.signal).filter(keep);
      page = hits.slice(offset, offset + query.limit);
      if (offset + query.limit < hits.length) next = { offset: offset + query.limit };
    } else {
      const after = cursor && 'after' in cursor ? cursor.after : null;
      const top = timeline.take(query.limit + 1, keep, new Date(now).toISOString(), after, filter);
      page = top.slice(0, query.limit);
      const last = page[page.length - 1];
      if (top.length > query.limit && last) next = { after: { published_at: last.published_at, id: last.id } };
    }
    return { items: page.map((signal) => discoverItem(context.store, signal)), next_cursor: next ? encodeCursor(next) : null };
  });
}
