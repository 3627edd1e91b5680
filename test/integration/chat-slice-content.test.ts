/**
 * The renderer's chat slice against the real bridge host (in-process, no socket): a conversation
 * whose answers cite the same signals again opens with every turn as main stored it, and stays
 * so once its answers share what they repeat (store/turn-content.ts, issue 31's soak heap); the
 * next conversation opened starts a table of its own.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Conversation, ConversationTurn } from '../../src/shared/conversation';
import { openConversationBridge, type ConversationBridge } from '../support/conversation-bridge';
import { useAppStore } from '../../src/renderer/src/store/app-store';
import { TurnContent } from '../../src/renderer/src/store/turn-content';
import { citationSnapshot } from '../support/citation-snapshot';
import { waitFor } from '../support/wait-for';

let bridge: ConversationBridge;

/** A turn citing signals `ids`, one of them (sig_b) with details that changed after turn 3. */
function turn(n: number, ids: string[]): ConversationTurn {
  const sentence = `Zudio opened ${n} stores in Pune [${ids[0]}].`;
  return {
    id: `trn_${n}`,
    question: `Question ${n}`,
    askedAt: new Date(Date.UTC(2026, 10, 1, 0, n)).toISOString(),
    answer: {
      text: `${sentence} Margins fell −3% [${ids.at(-1)}].`,
      status: 'done',
      error: null,
      citations: ids.map((id) =>
        citationSnapshot(id, {
          body: `The body of ${id}.${id === 'sig_b' && n > 3 ? ' Revised.' : ''}`,
          changed: id === 'sig_b' && n > 3,
          metrics: { stores: n },
          citedAt: new Date(Date.UTC(2026, 10, 1, 0, n)).toISOString(),
        }),
      ),
      confidence: 0.7,
      confidenceTrace: [0.5, 0.7],
      promotion: null,
      support: [
        { sentence, citation: ids[0]!, start: 0, end: 8 },
        { sentence: `Margins fell -3% [${ids.at(-1)}].`, citation: ids.at(-1)!, start: 2, end: 9 },
      ],
    },
  };
}

beforeAll(async () => {
  bridge = await openConversationBridge();
});
afterAll(() => bridge.close());
const stored = (title: string, turns: ConversationTurn[]): Promise<Conversation> => bridge.stored(title, turns);

/** The slice's turns as main stores turns (id, question, answer). */
const shown = (): Array<Pick<ConversationTurn, 'id' | 'question'> & { answer: ConversationTurn['answer'] | null }> =>
  useAppStore.getState().turns.map(({ id, question, answer }) => ({ id, question, answer }));
/**
 * Every answer held: the first and last rows shown, so the window (± 20 rows, decision 0028)
 * covers these 60 turns, and the answers outside the opening window are read back from main.
 */
let releases: Array<() => void> = [];
const settled = async (): Promise<void> => {
  for (const release of releases) release();
  const turns = useAppStore.getState().turns;
  releases = [turns[0], turns.at(-1)].flatMap((turn) => (turn ? [useAppStore.getState().showTurn(turn.rowKey ?? turn.id)] : []));
  await waitFor(() => useAppStore.getState().turns.every((turn) => turn.answer !== null), { timeout: 2_000, interval: 10, what: 'every answer read back' });
  // The sharing after the open runs in slices: done when each answer handed to it has been shared.
  await waitFor(() => {
    const handed = sharingLater.mock.calls.at(-1)?.[0] ?? [];
    const shared = new Set(sharing.mock.calls.map((call) => call[0]));
    return handed.every((answer) => shared.has(answer));
  }, { what: 'the sharing after the open' });
};
/** Spies that call through: what the slice handed to the sharing, and each answer it shared. */
const sharingLater = vi.spyOn(TurnContent.prototype, 'later');
const sharing = vi.spyOn(TurnContent.prototype, 'answer');

describe('chat slice: answers that repeat signals', () => {
  it('opens a conversation with every turn as stored, before and after its answers share strings', async () => {
    const turns = Array.from({ length: 60 }, (_, n) => turn(n, n % 2 === 0 ? ['sig_a', 'sig_b'] : ['sig_b', `sig_${n}`, 'sig_a']));
    const first = await stored('Repeats', turns);
    const expected = JSON.parse(JSON.stringify(turns.map(({ id, question, answer }) => ({ id, question, answer })))) as unknown;
    await useAppStore.getState().openConversation(first.id);
    // Opened at the end: the last 40 answers held, the others main's until shown.
    expect(shown().slice(-40)).toEqual((expected as unknown[]).slice(-40));
    // The sharing runs in slices after the open: let it finish, then compare again, in JSON too.
    await settled();
    expect(shown()).toEqual(expected);
    expect(JSON.stringify(shown())).toBe(JSON.stringify(expected));

    // Another conversation citing the same signals with other details: shown as stored.
    const other = turns.map((_, n) => turn(n + 10, ['sig_b', 'sig_a']));
    const second = await stored('Others', other);
    await useAppStore.getState().openConversation(second.id);
    await settled();
    expect(JSON.stringify(shown())).toBe(JSON.stringify(other.map(({ id, question, answer }) => ({ id, question, answer }))));
    // And the first again, from main.
    await useAppStore.getState().openConversation(first.id);
    await settled();
    expect(JSON.stringify(shown())).toBe(JSON.stringify(expected));
  });
});
