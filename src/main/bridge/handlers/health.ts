/** The sources-health view: watched while the view is open; what cited a source. */
import { ok } from '../../../shared/bridge-contract';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function healthHandlers({ health, conversations, research }: HandlerContext): HandlerMap<MethodsIn<'health'>> {
  return {
    'health.watch': () => ok(health.watch()),
    'health.refresh': async () => {
      await health.refresh();
      return ok(health.current());
    },
    'health.unwatch': () => {
      health.unwatch();
      return ok(null);
    },
    'health.citing': async ({ sourceId }) => {
      const answers = conversations.citing(sourceId).flatMap(({ conversation, turnIndex }) => {
        const turn = conversation.turns[turnIndex];
        return turn ? [{ kind: 'answer' as const, id: `${conversation.id}:${turnIndex}`, title: turn.question, at: turn.askedAt, openId: conversation.id }] : [];
      });
      const reports = (await research.reportsCiting(sourceId)).map((run) => ({ kind: 'report' as const, id: run.id, title: run.topic, at: run.startedAt, openId: run.id }));
      return ok([...answers, ...reports].sort((a, b) => b.at.localeCompare(a.at)));
    },
  };
}
