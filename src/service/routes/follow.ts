/**
 * Follows (docs/decisions/design.md §3): authenticated; the tier comes from the JWT claim `tier` (free by
 * default). Following past the tier's count is 403 `limit_reached`; follow changes and feed
 * reads each have the tier's hourly budget (429 with Retry-After when spent).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { route } from '../endpoint-routes';
import { FollowRequest, type FeedPage, type Follow } from '../../shared/surface-schemas';
import type { AuthenticatedUser } from '../auth';
import type { FollowRecord, FollowStore } from '../follows/follow-store';
import { canonicalTarget } from '../follows/signal-query';
import { ServiceError } from '../http-errors';
import { invalidRequest, type ServiceContext } from '../service-context';
import { TIER_LIMITS, tierOf, type SurfaceLimiter } from '../surface-limits';

export function followJson(record: FollowRecord): Follow {
  return { id: record.id, target: record.target, created_at: record.createdAt };
}

export function registerFollowRoutes(app: FastifyInstance, context: ServiceContext, limiter: SurfaceLimiter, follows: FollowStore): void {
  /** The caller and their tier, with this request counted against the tier's bucket. */
  const caller = (request: FastifyRequest, reply: FastifyReply, bucket: 'follow' | 'feed'): { user: AuthenticatedUser; tier: ReturnType<typeof tierOf> } => {
    const user = context.requireUser(request, 'Following');
    const tier = tierOf(user.tier);
    limiter.enforce(`${bucket}:${tier}`, `user:${user.id}`, reply);
    return { user, tier };
  };

  route(app, 'follow', async (request, reply) => {
    const { user, tier } = caller(request, reply, 'follow');
    const parsed = FollowRequest.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error);
    const target = canonicalTarget(context.store, parsed.data.target);
    if (!target) {
      throw new ServiceError(
        'invalid_request',
        `Invalid field \`target.value\`: no ${parsed.data.target.type === 'entity' ? 'retailer, segment, city or state' : parsed.data.target.type} called "${parsed.data.target.value}" in this service's signals.`,
      );
    }
    const allowed = TIER_LIMITS[tier].follows;
    // Following one it already has is that follow (200), even at the limit.
    const added = await follows.add(user.id, target, allowed);
    if (!added) {
      throw new ServiceError('limit_reached', `Your ${tier} tier allows ${allowed} follows. Remove one (DELETE /api/v1/follow/{id}) or move to a higher tier.`);
    }
    return reply.status(added.created ? 201 : 200).send(followJson(added.follow));
  });

  route(app, 'listFollows', async (request, reply) => {
    const { user, tier } = caller(request, reply, 'follow');
    return { follows: (await follows.list(user.id)).map(followJson), tier, limit: TIER_LIMITS[tier].follows };
  });

  route<{ Params: { id: string } }>(app, 'unfollow', async (request, reply) => {
    const { user } = caller(request, reply, 'follow');
    if (!(await follows.remove(user.id, request.params.id))) throw new ServiceError('not_found', `No follow ${request.params.id}.`);
    return { id: request.params.id, deleted: true };
  });

  route<{ Querystring: { cursor?: string } }>(app, 'followFeed', async (request, reply): Promise<FeedPage> => {
    const { user } = caller(request, reply, 'feed');
    const raw = request.query.cursor;
    const cursor = raw === undefined || raw === '' ? 0 : Number(raw);
    if (!Number.isInteger(cursor) || cursor < 0) throw new ServiceError('invalid_request', 'Invalid field `cursor`: pass back the `next_cursor` of the previous read.');
    const page = await follows.feed(user.id, cursor);
    return { items: page.items, next_cursor: String(page.nextCursor), has_more: page.hasMore };
  });
}
