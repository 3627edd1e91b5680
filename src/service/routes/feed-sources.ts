/**
 * The feed's sources over HTTP, for the service's administrator (a JWT with claim role "admin"):
 * list, add (fetched once first; `?dry_run=true` only previews), edit, pause, remove; and the
 * proposals queue (anyone holding a proposal's id reads its status).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { route } from '../endpoint-routes';
import { z } from 'zod';
import type { AuthenticatedUser } from '../auth';
import { FeedFailure } from '../feed/feed-failure';
import { SourceInputError } from '../feed/feed-service';
import type { ProposalRecord } from '../feed/feed-repository';
import { FEED_KINDS, SourcePatch } from '../feed/source-registry';
import { ServiceError } from '../http-errors';
import { invalidRequest, type ServiceContext } from '../service-context';

const RejectRequest = z.object({ reason: z.string().trim().min(1).max(1_000) });
const AcceptRequest = z.object({ kind: z.enum(FEED_KINDS).optional(), name: z.string().trim().min(1).max(200).optional(), cadence_s: z.number().int().min(1).max(7 * 86_400).optional() }).strict();

export function registerFeedSourceRoutes(app: FastifyInstance, context: ServiceContext): void {
  const feed = context.feed;
  const requireAdmin = (request: FastifyRequest): AuthenticatedUser => {
    const user = context.requireUser(request, 'Managing sources');
    if (user.role !== 'admin') throw new ServiceError('forbidden', 'Managing sources needs the service administrator: a JWT with the claim role "admin" (npm run service -- token --user … --role admin).');
    return user;
  };
  const asServiceError = (error: unknown): ServiceError => {
    if (error instanceof ServiceError) return error;
    if (error instanceof SourceInputError) return new ServiceError('invalid_request', error.message);
    if (error instanceof FeedFailure) return new ServiceError('source_unreadable', `The URL gave no items: ${error.message}`);
    return new ServiceError('internal', 'The source could not be checked.');
  };
  const sourceJson = (id: string) => {
    const view = feed.source(id);
    if (!view) return null;
    const { state: _state, ...definition } = view;
    const entry = feed.entry(view, context.now());
    return { ...definition, ...entry, item_selector: view.item_selector ?? null, created_at: view.created_at };
  };

  // On a team server, what another process changed is read first (feed.sync; nothing to do embedded).
  route(app, 'listFeedSources', async (request) => {
    requireAdmin(request);
    await feed.sync();
    return { sources: feed.sources().map((view) => sourceJson(view.id)), health_rule: feed.snapshotParts(context.now()).health_rule };
  });

  route<{ Querystring: { dry_run?: string } }>(app, 'addFeedSource', async (request, reply) => {
    requireAdmin(request);
    const dryRun = request.query.dry_run === 'true' || request.query.dry_run === '1';
    try {
      const { definition, preview, items_total, dropped, read_with_errors, feed_title } = await feed.preview(request.body as never);
      if (dryRun) return { dry_run: true, source: definition, preview, items_total, dropped, read_with_errors, feed_title };
      const created = await feed.add({ ...definition });
      return reply.status(201).send({ source: sourceJson(created.id), preview, items_total, dropped, read_with_errors, feed_title });
    } catch (error) {
      throw asServiceError(error);
    }
  });

  route<{ Params: { id: string } }>(app, 'getFeedSource', async (request) => {
    requireAdmin(request);
    await feed.sync();
    const source = sourceJson(request.params.id);
    if (!source) throw new ServiceError('not_found', `No source ${request.params.id}.`);
    return { source, history: await feed.history(request.params.id, 20) };
  });

  route<{ Params: { id: string } }>(app, 'updateFeedSource', async (request) => {
    requireAdmin(request);
    const parsed = SourcePatch.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error);
    await feed.sync();
    if (!(await feed.update(request.params.id, parsed.data))) throw new ServiceError('not_found', `No source ${request.params.id}.`);
    return { source: sourceJson(request.params.id) };
  });

  route<{ Params: { id: string } }>(app, 'deleteFeedSource', async (request, reply) => {
    requireAdmin(request);
    await feed.sync();
    if (!(await feed.remove(request.params.id))) throw new ServiceError('not_found', `No source ${request.params.id}.`);
    return reply.status(204).send();
  });

  route(app, 'listSourceProposals', async (request) => {
    requireAdmin(request);
    return { proposals: (await feed.listProposals()).map(proposalJson) };
  });

  route<{ Params: { id: string } }>(app, 'getSourceProposal', async (request) => {
    const proposal = await feed.getProposal(request.params.id);
    if (!proposal) throw new ServiceError('not_found', `No proposal ${request.params.id}.`);
    // Anyone holding the id reads its status; who proposed it stays with the administrator.
    const { proposed_by: _by, ...status } = proposalJson(proposal);
    return status;
  });

  route<{ Params: { id: string } }>(app, 'acceptSourceProposal', async (request) => {
    requireAdmin(request);
    const parsed = AcceptRequest.safeParse(request.body ?? {});
    if (!parsed.success) throw invalidRequest(parsed.error);
    if (!(await feed.getProposal(request.params.id))) throw new ServiceError('not_found', `No proposal ${request.params.id}.`);
    try {
      const { proposal, source } = await feed.accept(request.params.id, parsed.data);
      return { proposal: proposalJson(proposal), source: sourceJson(source.id) };
    } catch (error) {
      throw asServiceError(error);
    }
  });

  route<{ Params: { id: string } }>(app, 'rejectSourceProposal', async (request) => {
    requireAdmin(request);
    const parsed = RejectRequest.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error);
    if (!(await feed.getProposal(request.params.id))) throw new ServiceError('not_found', `No proposal ${request.params.id}.`);
    try {
      return { proposal: proposalJson(await feed.reject(request.params.id, parsed.data.reason)) };
    } catch (error) {
      throw asServiceError(error);
    }
  });
}

function proposalJson(proposal: ProposalRecord) {
  return { ...proposal };
}
