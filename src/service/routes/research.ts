/**
 * Research: v1 (POST /api/v1/research) holds the request until the report is ready; v2
 * (POST /api/v2/research) answers 202 `queued` at once; runs are polled at
 * GET /api/v2/research/{id} (with `progress`) or GET /api/v1/research/{id}; the report is at GET /api/v1/research/{id}/report as JSON,
 * markdown or HTML (Accept). Research is for authenticated callers only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { route } from '../endpoint-routes';
import { ResearchRequest, ResearchScheduleRequest, ResearchScheduleUpdate } from '../../shared/service-schemas';
import { RESEARCH_SCHEDULE_CAPS } from '../../shared/endpoints/research';
import type { ScheduleRecord } from '../research/research-schedules';
import { tierOf } from '../surface-limits';
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
    return reply.status(202).send({ status: 'queued', id: run.id, status_url: `/api/v2/research/${run.id}` });
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

  // v2's view of a run: where it is while it works, and what its report carries once done.
  route<{ Params: { id: string } }>(app, 'getResearchRunV2', async (request) => runV2(await ownRun(request)));

  // Schedules: a topic run daily or weekly, each run a normal v2 run (research-schedules.ts).
  route(app, 'createResearchSchedule', async (request, reply) => {
    const user = context.requireUser(request, 'Research');
    const parsed = ResearchScheduleRequest.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error);
    const tier = tierOf(user.tier);
    const cap = RESEARCH_SCHEDULE_CAPS[tier];
    if ((await context.schedules.count(user.id)) >= cap) {
      throw new ServiceError('limit_reached', `Your ${tier} tier allows ${cap} research schedules. Delete one (DELETE /api/v2/research/schedules/{id}) or move to a higher tier.`);
    }
    await context.enforceLimit('research', `user:${user.id}`, reply);
    const schedule = await context.schedules.create(user.id, { ...parsed.data, topic: parsed.data.topic.trim() });
    return reply.status(201).send(scheduleJson(schedule));
  });

  route(app, 'listResearchSchedules', async (request) => {
    const user = context.requireUser(request, 'Research');
    return { schedules: (await context.schedules.list(user.id)).map(scheduleJson), limit: RESEARCH_SCHEDULE_CAPS[tierOf(user.tier)] };
  });

  // A new cadence or time in place: the schedule's runs and "what changed" carry on.
  route<{ Params: { id: string } }>(app, 'updateResearchSchedule', async (request) => {
    const user = context.requireUser(request, 'Research');
    const parsed = ResearchScheduleUpdate.safeParse(request.body ?? {});
    if (!parsed.success) throw invalidRequest(parsed.error);
    if (parsed.data.every === undefined && parsed.data.at === undefined) throw new ServiceError('invalid_request', 'Give `every` (daily or weekly), `at` (HH:MM, UTC) or both.');
    const schedule = await context.schedules.update(user.id, request.params.id, parsed.data);
    if (!schedule) throw new ServiceError('not_found', `No research schedule ${request.params.id}.`);
    return scheduleJson(schedule);
  });

  route<{ Params: { id: string } }>(app, 'deleteResearchSchedule', async (request, reply) => {
    const user = context.requireUser(request, 'Research');
    if (!(await context.schedules.remove(user.id, request.params.id))) throw new ServiceError('not_found', `No research schedule ${request.params.id}.`);
    return reply.status(204).send();
  });

  route<{ Params: { id: string } }>(app, 'runResearchSchedule', async (request, reply) => {
    const user = context.requireUser(request, 'Research');
    const schedule = await context.schedules.get(user.id, request.params.id);
    if (!schedule) throw new ServiceError('not_found', `No research schedule ${request.params.id}.`);
    await context.enforceLimit('research', `user:${user.id}`, reply);
    const run = await context.schedules.runNow(schedule);
    return reply.status(202).send({ status: 'queued', id: run.id, status_url: `/api/v2/research/${run.id}` });
  });

  route<{ Params: { id: string } }>(app, 'getResearchReport', async (request, reply) => {
    const run = await ownRun(request);
    if (run.status !== 'completed' || !run.markdown) throw new ServiceError('not_found', `Research run ${run.id} has no report yet (status: ${run.status}).`);
    const format = preferredFormat(request.headers.accept ?? '');
    if (format === 'markdown') return reply.type('text/markdown; charset=utf-8').send(run.markdown);
    if (format === 'html') {
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
      ...(run.details
        ? {
            cost_basis: run.details.cost_basis,
            composer: run.details.composer,
            verification: run.details.verification,
            support: run.details.support,
            changes: run.details.changes,
            series: run.details.series,
            sections: run.details.sections,
          }
        : {}),
    };
  });
}

export function runV2(run: ResearchRunRecord): Record<string, unknown> {
  return {
    id: run.id,
    status: run.status,
    topic: run.topic,
    preset: run.preset,
    created_at: run.createdAt,
    progress: run.progress,
    schedule_id: run.scheduleId,
    ...(run.status === 'completed'
      ? {
          report_url: reportUrl(run),
          citation_count: run.citations.length,
          cost_usd: run.costUsd,
          ...(run.details ? { cost_basis: run.details.cost_basis, verification: run.details.verification, changes: run.details.changes } : {}),
        }
      : {}),
    ...(run.status === 'failed' ? { error: run.error ?? 'The research run failed.' } : {}),
  };
}

function scheduleJson(schedule: ScheduleRecord): Record<string, unknown> {
  return {
    id: schedule.id,
    topic: schedule.topic,
    preset: schedule.preset,
    every: schedule.every,
    at: schedule.at,
    created_at: schedule.createdAt,
    next_run_at: new Date(schedule.nextRunMs).toISOString(),
    last_run_id: schedule.lastRunId,
  };
}

/**
 * The report's format by the Accept header's preference (q, then order): a client that lists
 * JSON first gets JSON with the report's verification, cost basis and changes, not markdown.
 */
export function preferredFormat(accept: string): 'json' | 'markdown' | 'html' {
  const ranked = accept
    .split(',')
    .map((part, index) => {
      const [type = '', ...params] = part.trim().toLowerCase().split(';');
      const q = Number(params.map((param) => /^\s*q=([\d.]+)/.exec(param)?.[1]).find(Boolean) ?? 1);
      const format = type.trim() === 'text/markdown' ? 'markdown' : type.trim() === 'text/html' ? 'html' : type.trim() === 'application/json' ? 'json' : null;
      return { format, q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((entry): entry is { format: 'json' | 'markdown' | 'html'; q: number; index: number } => entry.format !== null && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked[0]?.format ?? 'json';
}

function reportUrl(run: ResearchRunRecord): string {
  return `/api/v1/research/${run.id}/report`;
}
