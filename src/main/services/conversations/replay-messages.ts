/**
 * The `messages` of an ask: the conversation's earlier turns replayed, each question as a `user`
 * turn and each finished answer as an `assistant` turn, then the question. So a conversation
 * continues on another service, or after a restart, with its context. Within the interface's
 * limits: at most MAX_MESSAGES turns of at most MAX_MESSAGE_CHARS each, and the whole body under
 * 64 KB; the newest turns are kept, and a long answer is cut at a word with an ellipsis.
 */
import { MAX_MESSAGE_CHARS, MAX_MESSAGES } from '../../../shared/service-schemas';

export interface ReplayTurn {
  question: string;
  /** The answer's text, or null when it has none worth replaying (failed, cancelled, empty). */
  answer: string | null;
}

export type ReplayMessage = { role: 'user' | 'assistant'; content: string };

/** Leaves room under the 64 KB body limit for the JSON around the turns and `session_id`. */
export const REPLAY_BUDGET_BYTES = 56 * 1024;
/** An answer replayed is context, not the record: a long one is cut here. */
export const REPLAY_ANSWER_CHARS = 4_000;

const bytes = (message: ReplayMessage): number => new TextEncoder().encode(JSON.stringify(message)).length + 1;

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 1);
  const atWord = head.replace(/\s+\S*$/, '');
  return `${atWord.length > max / 2 ? atWord : head}…`;
}

export function replayMessages(turns: readonly ReplayTurn[], question: string): ReplayMessage[] {
  const last: ReplayMessage = { role: 'user', content: cut(question, MAX_MESSAGE_CHARS) };
  let budget = REPLAY_BUDGET_BYTES - bytes(last);
  const kept: ReplayMessage[] = [];
  // Newest first, whole turns only, until the turn count or the byte budget would be exceeded.
  for (let i = turns.length - 1; i >= 0; i -= 1) {
    const turn = turns[i]!;
    const pair: ReplayMessage[] = [{ role: 'user', content: cut(turn.question, MAX_MESSAGE_CHARS) }];
    const answer = turn.answer?.trim();
    if (answer) pair.push({ role: 'assistant', content: cut(answer, REPLAY_ANSWER_CHARS) });
    const size = pair.reduce((sum, message) => sum + bytes(message), 0);
    if (kept.length + pair.length + 1 > MAX_MESSAGES || size > budget) break;
    budget -= size;
    kept.unshift(...pair);
  }
  return [...kept, last];
}
