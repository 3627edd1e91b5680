/** Research reports: v1 (synchronous), v2 (queued), polling and the report itself. */
import { z } from 'zod';
import { ResearchQueuedResponse, ResearchRequest, ResearchRun, ResearchRunV2, ResearchSchedule, ResearchScheduleRequest, ResearchScheduleUpdate, ResearchV1Response } from '../service-schemas';
import type { Tier } from './limits';
import { area, endpoint } from './define';
import { jsonResponse, pathParameter, ref, RATE_HEADER } from '../openapi/common';

const RUN = 'run_5e1f0a9b3c7d2e48';
const runParameter = pathParameter('id', 'The run id returned when the run was started.', { type: 'string' }, RUN);
const request = { schema: ResearchRequest, example: { topic: 'Quick commerce expansion in Tier 2 cities', preset: 'standard' } };
const REPORT_URL = `/api/v1/research/${RUN}/report`;
const SIGNED_IN = 'Signed-in callers only (a JWT or an API key); anonymous callers get 401.';

/** Schedules a caller may keep, by the JWT claim `tier` (`free` when absent or unknown). */
export const RESEARCH_SCHEDULE_CAPS: Record<Tier, number> = { free: 2, pro: 10, team: 50 };
const SCHEDULE = {
  id: 'rsc_0a1b2c3d4e5f6a7b',
  topic: 'Quick commerce in tier-2 cities',
  preset: 'standard',
  every: 'weekly',
  at: '06:00',
  created_at: '2026-11-01T10:00:00.000Z',
  next_run_at: '2026-11-08T06:00:00.000Z',
  last_run_id: null,
};
const scheduleParameter = pathParameter('id', 'The schedule id returned when it was created.', { type: 'string' }, SCHEDULE.id);
export const ResearchScheduleList = z.object({ schedules: z.array(ResearchSchedule), limit: z.number().int() }).meta({ id: 'ResearchScheduleList' });

export const researchArea = area({
  tags: [{ name: 'Research', description: 'Written reports on a topic, with every cited signal. Signed-in callers only.' }],
  endpoints: {
    researchV1: endpoint({
      method: 'POST',
      path: '/api/v1/research',
      tag: 'Research',
      summary: 'Write a research report (v1, synchronous)',
      description: `Holds the request until the report is ready (planned, retrieved, written and verified section by section). ${SIGNED_IN} Hanging up cancels the run. **Deprecated** since v2 was announced (2026-11-01): every response carries \`Deprecation\`, \`Sunset\` (six months later) and a \`Link\` to the changelog; use \`POST /api/v2/research\`.`,
      access: 'signed-in',
      deprecated: true,
      limit: 'research',
      requestBody: request,
      responses: {
        '200': jsonResponse('The report is ready at `report_url` (relative to the base URL).', ResearchV1Response, {
          status: 'completed',
          id: RUN,
          report_url: REPORT_URL,
          citation_count: 12,
          cost_usd: 0,
        }),
      },
      errors: { 400: 'Too few signals match the topic to write a report.' },
    }),
    researchV2: endpoint({
      method: 'POST',
      path: '/api/v2/research',
      tag: 'Research',
      summary: 'Queue a research run (v2)',
      description: `Answers 202 at once; poll \`status_url\` until the run is \`completed\` or \`failed\`. ${SIGNED_IN}`,
      access: 'signed-in',
      limit: 'research',
      requestBody: request,
      responses: {
        '202': jsonResponse('Queued.', ResearchQueuedResponse, { status: 'queued', id: RUN, status_url: `/api/v2/research/${RUN}` }),
      },
    }),
    getResearchRunV2: endpoint({
      method: 'GET',
      path: '/api/v2/research/{id}',
      tag: 'Research',
      summary: 'Poll a research run (v2, with progress)',
      description: `\`progress\` says where a run is (\`planning\`, \`retrieving\`, \`writing\`, \`verifying\`, \`done\`, with the steps of the stage done and in all). A completed run carries its cost (\`cost_usd\`, \`cost_basis\`: \`local\` or \`model_usage\`), its \`verification\` and, when the caller ran the same topic before, \`changes\`. ${SIGNED_IN} Someone else's run is 404.`,
      access: 'signed-in',
      parameters: [runParameter],
      responses: {
        '200': jsonResponse('The run.', ResearchRunV2, {
          id: RUN,
          status: 'running',
          topic: 'Quick commerce expansion in Tier 2 cities',
          preset: 'standard',
          created_at: '2026-11-01T10:00:00.000Z',
          progress: { stage: 'writing', done: 3, total: 6 },
          schedule_id: null,
        }),
      },
      errors: { 404: '`not_found`: no run with this id for this caller.' },
    }),
    getResearchRun: endpoint({
      method: 'GET',
      path: '/api/v1/research/{id}',
      tag: 'Research',
      summary: 'Poll a research run',
      description: `\`queued\` → \`running\` → \`completed\` (with the v1 fields) or \`failed\` (with \`error\`). ${SIGNED_IN} Someone else's run is 404.`,
      access: 'signed-in',
      parameters: [runParameter],
      responses: {
        '200': jsonResponse('The run.', ResearchRun, {
          id: RUN,
          status: 'completed',
          topic: 'Quick commerce expansion in Tier 2 cities',
          preset: 'standard',
          created_at: '2026-11-01T10:00:00.000Z',
          report_url: REPORT_URL,
          citation_count: 12,
          cost_usd: 0,
        }),
      },
      errors: { 404: '`not_found`: no run with this id for this caller.' },
    }),
    getResearchReport: endpoint({
      method: 'GET',
      path: '/api/v1/research/{id}/report',
      tag: 'Research',
      summary: 'Get a finished report',
      description: `JSON by default, markdown with \`Accept: text/markdown\`, HTML with \`Accept: text/html\`. ${SIGNED_IN}`,
      access: 'signed-in',
      parameters: [runParameter],
      responses: {
        '200': {
          description: 'The report, in the format asked for with `Accept`.',
          headers: RATE_HEADER,
          content: {
            'application/json': {
              schema: ref('Report'),
              example: {
                id: RUN,
                topic: 'Quick commerce expansion in Tier 2 cities',
                preset: 'standard',
                status: 'completed',
                created_at: '2026-11-01T10:00:00.000Z',
                markdown: '# Quick commerce expansion in Tier 2 cities\n\nBlinkit added 40 dark stores in Jaipur [sig_3f9a0c1d2e4b5a67].',
                citations: [
                  {
                    id: 'sig_3f9a0c1d2e4b5a67',
                    slug: 'blinkit-adds-40-dark-stores-in-jaipur-3f9a0c',
                    title: 'Blinkit adds 40 dark stores in Jaipur',
                    summary: 'Blinkit expanded its Jaipur network to 95 dark stores.',
                    body: 'Blinkit expanded its Jaipur network to 95 dark stores in October.',
                    source_id: 'src_business_standard',
                    url: 'https://example.com/bs/blinkit-jaipur',
                    published_at: '2026-10-20T08:00:00.000Z',
                    type: 'expansion',
                    entities: { retailers: ['Blinkit'], segments: ['quick commerce'], cities: ['Jaipur'], states: ['Rajasthan'] },
                    metrics: { dark_stores: 95 },
                  },
                ],
                citation_count: 1,
                cost_usd: 0,
              },
            },
            'text/markdown': { schema: { type: 'string' }, example: '# Quick commerce expansion in Tier 2 cities\n\nBlinkit added 40 dark stores in Jaipur [sig_3f9a0c1d2e4b5a67].' },
            'text/html': { schema: { type: 'string' }, example: '<!doctype html><html lang="en"><head><title>Quick commerce expansion</title></head><body><h1>Quick commerce expansion</h1></body></html>' },
          },
        },
      },
      errors: { 404: '`not_found`: no run with this id for this caller, or the run has no report yet.' },
    }),
    createResearchSchedule: endpoint({
      method: 'POST',
      path: '/api/v2/research/schedules',
      tag: 'Research',
      summary: 'Schedule a topic (daily or weekly)',
      description: `Runs the topic \`every\` day or week at \`at\` (UTC, HH:MM; weekly on the weekday the schedule was made). Each run is a normal v2 run; one with changes since the last run of the topic is announced as the webhook event \`research.changed\`. Creating one counts toward the research limit; a caller keeps at most ${Object.entries(RESEARCH_SCHEDULE_CAPS).map(([tier, cap]) => `${cap} (${tier})`).join(', ')} by the JWT claim \`tier\`; over it, 403 \`limit_reached\`. ${SIGNED_IN}`,
      access: 'signed-in',
      limit: 'research',
      requestBody: { schema: ResearchScheduleRequest, example: { topic: SCHEDULE.topic, preset: 'standard', every: 'weekly', at: '06:00' } },
      responses: { '201': jsonResponse('Scheduled.', ResearchSchedule, SCHEDULE) },
      errors: { 403: '`limit_reached`: the tier\'s schedules are used up.' },
    }),
    listResearchSchedules: endpoint({
      method: 'GET',
      path: '/api/v2/research/schedules',
      tag: 'Research',
      summary: 'Your research schedules',
      description: `The caller's own schedules, oldest first, with the tier's limit. ${SIGNED_IN}`,
      access: 'signed-in',
      responses: { '200': jsonResponse('Your schedules.', ResearchScheduleList, { schedules: [SCHEDULE], limit: RESEARCH_SCHEDULE_CAPS.free }) },
    }),
    updateResearchSchedule: endpoint({
      method: 'PATCH',
      path: '/api/v2/research/schedules/{id}',
      tag: 'Research',
      summary: 'Change a research schedule\'s cadence or time',
      description: `Sets \`every\` and/or \`at\` (UTC, HH:MM; weekly runs stay on the weekday the schedule was made); the next run is worked out again from now. The schedule keeps its id, topic, creation time and last run, so its runs and their "what changed" carry on. Changing a schedule starts no run and does not count toward the research limit. Only the schedule's owner may change it. ${SIGNED_IN}`,
      access: 'signed-in',
      parameters: [scheduleParameter],
      requestBody: { schema: ResearchScheduleUpdate, example: { every: 'daily', at: '03:30' } },
      responses: { '200': jsonResponse('The schedule as changed.', ResearchSchedule, { ...SCHEDULE, every: 'daily', at: '03:30', next_run_at: '2026-11-02T03:30:00.000Z' }) },
      errors: { 400: '`invalid_request`: neither `every` nor `at` given, or one is not valid.', 404: '`not_found`: no schedule of yours with this id.' },
    }),
    deleteResearchSchedule: endpoint({
      method: 'DELETE',
      path: '/api/v2/research/schedules/{id}',
      tag: 'Research',
      summary: 'Delete a research schedule',
      description: `Stops the schedule; its runs and reports stay. ${SIGNED_IN}`,
      access: 'signed-in',
      parameters: [scheduleParameter],
      responses: { '204': { description: 'Deleted.', headers: RATE_HEADER } },
      errors: { 404: '`not_found`: no schedule of yours with this id.' },
    }),
    runResearchSchedule: endpoint({
      method: 'POST',
      path: '/api/v2/research/schedules/{id}/run',
      tag: 'Research',
      summary: 'Run a schedule now',
      description: `Queues the schedule's run at once (a normal v2 run, counted toward the research limit); its times are unchanged. ${SIGNED_IN}`,
      access: 'signed-in',
      limit: 'research',
      parameters: [scheduleParameter],
      requestBody: { schema: { type: 'object' }, example: {}, required: false, description: 'Empty JSON object.' },
      responses: { '202': jsonResponse('Queued.', ResearchQueuedResponse, { status: 'queued', id: RUN, status_url: `/api/v2/research/${RUN}` }) },
      errors: { 404: '`not_found`: no schedule of yours with this id.' },
    }),
  },
});
