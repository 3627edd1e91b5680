/**
 * `GET /api/v1/entities?q=` (issue 43): the entities questions, Discover's `entity=`, follows and
 * predictions accept — the built-in gazetteer's retailers and the organisations, brands and
 * people learned from fetched items. Anonymous, counted in the Discover bucket.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { EntityList } from '../../shared/surface-schemas';
import { entityKey, topOf } from '../feed/entity-learning';
import { route } from '../endpoint-routes';
import { editDistance } from '../retrieval/entity-resolver';
import { invalidRequest, type ServiceContext } from '../service-context';
import type { SurfaceLimiter } from '../surface-limits';
import { worldEntities } from '../world/entity-registry';

interface Listed { name: string; kind: string; aliases: string[]; origin: 'gazetteer' | 'learned'; segments: string[]; cities: string[] }

const EntitiesQuery = z.object({
  q: z.string().trim().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** Signals counted per entity at most (a count above it reads "1,000"). */
const COUNT_CAP = 1_000;

/** How well a query fits a name or alias: 0 exact, 1 prefix, 2 inside, 3 a typo; null no match. */
function fit(query: string, names: string[]): number | null {
  let best: number | null = null;
  for (const name of names) {
    const key = entityKey(name);
    const score = key === query ? 0 : key.startsWith(query) ? 1 : key.includes(query) ? 2 : query.length >= 5 && editDistance(query, key, 2) <= (query.length >= 8 ? 2 : 1) ? 3 : null;
    if (score !== null && (best === null || score < best)) best = score;
  }
  return best;
}

export function registerEntityRoutes(app: FastifyInstance, context: ServiceContext, limiter: SurfaceLimiter): void {
  route(app, 'listEntities', async (request, reply): Promise<EntityList> => {
    limiter.enforce('discover', context.identify(request).key, reply);
    const parsed = EntitiesQuery.safeParse(request.query);
    if (!parsed.success) throw invalidRequest(parsed.error);
    const { q, limit } = parsed.data;
    // On a team server, what another process learned a moment ago is listed too.
    await context.feed.sync();
    // The world's registry: the gazetteer (the seed, which wins on conflicts) and what was learned.
    const candidates: Listed[] = worldEntities.all().map((entity) => {
      const learned = entity.origin === 'learned' ? context.feed.learner.get(entity.name) : undefined;
      return {
        name: entity.name,
        kind: learned?.kind ?? entity.kind,
        aliases: [...entity.aliases, ...(entity.parent ? [entity.parent] : [])],
        origin: entity.origin,
        segments: learned ? topOf(learned.segments) : entity.segment ? [entity.segment] : [],
        cities: learned ? topOf(learned.cities) : entity.cities.slice(0, 3),
      };
    });
    const query = q ? entityKey(q) : '';
    const matching = candidates
      .map((candidate) => ({ candidate, score: query ? fit(query, [candidate.name, ...candidate.aliases]) : 0 }))
      .filter((entry): entry is { candidate: Listed; score: number } => entry.score !== null);
    const now = context.now();
    const items = matching.map(({ candidate, score }) => ({ item: { ...candidate, signals: signalsNaming(context, candidate.name, now) }, score }));
    items.sort((a, b) => a.score - b.score || b.item.signals - a.item.signals || a.item.name.localeCompare(b.item.name));
    return { items: items.slice(0, limit).map(({ item }) => item) };
  });
}

function signalsNaming(context: ServiceContext, name: string, now: number): number {
  return context.store.index.search(name, { now, limit: COUNT_CAP }).filter((hit) => hit.signal.entities.retailers.includes(name)).length;
}
