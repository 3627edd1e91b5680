/** Source proposals, session sharing, and the public page of a shared answer. */
import type { FastifyInstance } from 'fastify';
import { route } from '../endpoint-routes';
import { z } from 'zod';
import { ProposeRequest } from '../../shared/service-schemas';
import { formatDay } from '../answers/composer';
import { ServiceError } from '../http-errors';
import { invalidRequest, type ServiceContext } from '../service-context';
import { escapeHtml, page } from './pages';

const VisibilityRequest = z.object({ public: z.boolean() });

export function registerSessionRoutes(app: FastifyInstance, context: ServiceContext): void {
  route(app, 'proposeSource', async (request, reply) => {
    const identity = context.identify(request);
    await context.enforceLimit('propose', identity.key, reply);
    const parsed = ProposeRequest.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error);
    // Stored for the administrator's queue; never fetched until accepted.
    const proposal = await context.feed.propose(parsed.data, identity.key);
    return reply.status(202).send({ status: 'received', proposal_id: proposal.id, status_url: `/api/v1/sources/proposals/${proposal.id}` });
  });

  route<{ Params: { id: string } }>(app, 'setSessionVisibility', async (request) => {
    const identity = context.identify(request);
    const parsed = VisibilityRequest.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error);
    const session = await context.sessions.get(request.params.id);
    if (!session || session.owner !== identity.key) throw new ServiceError('not_found', `No session ${request.params.id} of yours.`);
    await context.sessions.setPublic(session, parsed.data.public);
    return { session_id: session.id, session_slug: session.slug, public: session.isPublic, turns: session.turns.length, url: `/ask/${session.slug}/${session.turns.length}` };
  });

  route<{ Params: { slug: string; turn: string } }>(app, 'sharedAnswerPage', async (request, reply) => {
    const session = await context.sessions.getBySlug(request.params.slug);
    const ordinal = Number(request.params.turn);
    // A private session is indistinguishable from a missing one.
    if (!session || !session.isPublic) throw new ServiceError('not_found', 'No public session at this address.');
    const turn = Number.isInteger(ordinal) && ordinal >= 1 ? session.turns[ordinal - 1] : undefined;
    if (!turn) throw new ServiceError('not_found', `This session has no turn ${escapeHtml(request.params.turn)}.`);
    const citations = turn.citations
      .map((id) => context.store.getSignal(id))
      .filter((signal) => signal !== undefined)
      .map((signal) => `<li><a href="/signal/${encodeURIComponent(signal.slug)}">${escapeHtml(signal.title)}</a> — ${escapeHtml(context.store.sourcesById.get(signal.source_id)?.name ?? signal.source_id)}, ${escapeHtml(formatDay(signal.published_at, context.timeZone))} <span class="meta">${escapeHtml(signal.id)}</span></li>`)
      .join('');
    reply.type('text/html; charset=utf-8');
    return page(
      turn.question,
      `<p class="meta">Shared answer · turn ${ordinal} of ${session.turns.length} · confidence ${Math.round(turn.confidence * 100)}%</p>
<h1>${escapeHtml(turn.question)}</h1><pre style="white-space:pre-wrap;font:inherit">${escapeHtml(turn.answer)}</pre>
<h2>Sources</h2><ol>${citations}</ol>`,
    );
  });
}
