/** Research runs: start, list, cancel, retry, open the report; the analyst's schedules (list, make, run now, delete), their runs checked and changes marked seen. */
import { fail, ok } from '../../../shared/bridge-contract';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function researchHandlers({ research, connection, scheduledRuns }: HandlerContext): HandlerMap<MethodsIn<'research'>> {
  return {
    'research.start': ({ topic, preset, mode }) => {
      const baseUrl = connection.status.baseUrl;
      if (!connection.client || !baseUrl) return fail({ code: 'unavailable', message: connection.status.detail ?? 'The service is not ready yet.' });
      return ok(research.start(topic, preset, mode, baseUrl));
    },
    'research.list': () => ok(research.list()),
    'research.cancel': ({ id }) => {
      const run = research.cancel(id);
      return run ? ok(run) : fail({ code: 'invalid_argument', message: 'That run is not running.' });
    },
    'research.retry': ({ id }) => {
      const run = research.retry(id);
      return run ? ok(run) : fail({ code: 'invalid_argument', message: 'Only failed or cancelled runs can be retried.' });
    },
    'research.markSeen': ({ id }) => {
      const run = research.markSeen(id);
      return run ? ok(run) : fail({ code: 'not_found', message: 'That run is not in the list.' });
    },
    'research.checkSchedules': async () => ok({ adopted: await scheduledRuns.check() }),
    'research.schedules': () => scheduledRuns.list(),
    'research.schedule': (request) => scheduledRuns.create(request),
    'research.runSchedule': ({ id }) => scheduledRuns.runNow(id),
    'research.deleteSchedule': ({ id }) => scheduledRuns.remove(id),
    'research.updateSchedule': ({ id, every, at }) => scheduledRuns.update(id, { every, at }),
    'research.report': async ({ id }) => {
      const run = research.list().find((r) => r.id === id);
      const report = run ? await research.report(id) : null;
      return run && report ? ok({ run, report }) : fail({ code: 'not_found', message: 'That report is not available (yet).' });
    },
  };
}
