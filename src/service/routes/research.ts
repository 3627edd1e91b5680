/**
 * Research: v1 (POST /api/v1/research) holds the request until the report is ready; v2
 * (POST /api/v2/research) answers 202 `queued` at once; runs are polled at
 * GET /api/v1/research/{id}; the report is at GET /api/v1/research/{id}/report as JSON,
 * markdown or HTML (Accept). Research is for authenticated callers only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { route } from '../endpoint-routes';
import { ResearchRequest } from '../../shared/service-schemas';
import { announceDeprecation, DEPRECATIONS } from '../developer/deprecations';
import { ServiceError } from '../http-errors';
import type { ResearchRunRecord } from '../research/research-runs';
import { invalidRequest, type ServiceContext } from '../service-context';
import { escapeHtml, page } from './pages';

export function registerResearchRoutes(app: FastifyInstance, context: ServiceContext): void {
  const start = async (request: FastifyRequest, reply: FastifyReply, queued: boolean): Promise<ResearchRunRecord> => {
    const user = context.requireUser(request, 'Research');
    await context.enforceLimit('research', `user:${user.id}`, reply);
    const parsed = ResearchRequest.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error);
    return context.research.create(user.id, parsed.data.topic.trim(), parsed.data.preset, { queued, timeZone: parsed.data.time_zone });
  };

  // v1 is deprecated now that v2 is announced: every response says so (developer/deprecations.ts).
  const v1Deprecation = DEPRECATIONS.find((entry) => entry.method === 'POST' && entry.path === '/api/v1/research')!;
  route(app, 'researchV1', { onSend: announceDeprecation(v1Deprecation) }, async (request, reply) => {
    const run = await start(request, reply, false);
    // A caller who hangs up cancels the run. The response's close, not the request's: a request
    // closes as soon as its body has been read, long before the report is ready.
    const controller = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    await context.research.execute(run, { signal: controller.signal });
    if (run.status === 'failed') throw new ServiceError('invalid_request', run.error ?? 'The research run failed.');
    return { status: 'completed', id: run.id, report_url: reportUrl(run), citation_count: run.citations.length, cost_usd: run.costUsd };
  });

  route(app, 'researchV2', async (request, reply) => {
    const run = await start(request, reply, true);
    return reply.status(202).send({ status: 'queued', id: run.id, status_url: `/api/v1/research/${run.id}` });
  });

  const ownRun = async (request: FastifyRequest<{ Params: { id: string } }>): Promise<ResearchRunRecord> => {
    const user = context.requireUser(request, 'Research');
    const run = await context.research.get(request.params.id);
    // Someone else's run is reported as missing, not forbidden: ids are not to be probed.
    if (!run || run.owner !== user.id) throw new ServiceError('not_found', `No research run ${request.params.id}.`);
    return run;
  };

  route<{ Params: { id: string } }>(app, 'getResearchRun', async (request) => {
    const run = await ownRun(request);
    return {
      id: run.id,
      status: run.status,
      topic: run.topic,
      preset: run.preset,
      created_at: run.createdAt,
      ...(run.status === 'completed' ? { report_url: reportUrl(run), citation_count: run.citations.length, cost_usd: run.costUsd } : {}),
      ...(run.status === 'failed' ? { error: run.error ?? 'The research run failed.' } : {}),
    };
  });

  route<{ Params: { id: string } }>(app, 'getResearchReport', async (request, reply) => {
    const run = await ownRun(request);
    if (run.status !== 'completed' || !run.markdown) throw new ServiceError('not_found', `Research run ${run.id} has no report yet (status: ${run.status}).`);
    const accept = request.headers.accept ?? '';
    if (accept.includes('text/markdown')) return reply.type('text/markdown; charset=utf-8').send(run.markdown);
    if (accept.includes('text/html') && !accept.includes('application/json')) {
      return reply.type('text/html; charset=utf-8').send(page(run.topic, `<h1>${escapeHtml(run.topic)}</h1><pre style="white-space:pre-wrap">${escapeHtml(run.markdown)}</pre>`));
    }
    return {
      id: run.id,
      topic: run.topic,
      preset: run.preset,
      status: run.status,
      created_at: run.createdAt,
      markdown: run.markdown,
      citations: run.citations.map((signal) => ({ ...signal, source_name: context.store.sourcesById.get(signal.source_id)?.name ?? signal.source_id })),
      citation_count: run.citations.length,
      cost_usd: run.costUsd,
    };
  });
}

function reportUrl(run: ResearchRunRecord): string {
  return `/api/v1/research/${run.id}/report`;
}
