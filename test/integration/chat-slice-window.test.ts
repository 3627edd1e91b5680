/**
 * The chat slice's window over turn content (issue 31, decision 0028) against the real bridge
 * host, in process: opening a conversation of 1,000 turns holds only the answers near the end;
 * a window moved over every turn holds no more than the rows shown ± 20 and reads every answer
 * back as main stores it; `conversations.turns` reads turns by id and refuses a bad read with a
 * clear error; a turn whose place differs in main (retried after it failed unstored) still reads
 * back; a read for a conversation left meanwhile lands nowhere; a read that fails (the
 * conversation deleted in main meanwhile) leaves the turn with its question and a retryable
 * error, never a blank answer, and the retry after a restore reads it back.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Conversation, ConversationTurn } from '../../src/shared/conversation';
import type { BridgeHost } from '../../src/main/bridge/bridge-host';
import type { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { openConversationBridge, type ConversationBridge } from '../support/conversation-bridge';
import { WINDOW_PAD } from '../../src/renderer/src/store/chat-slice';
import { useAppStore } from '../../src/renderer/src/store/app-store';
import { TurnContent } from '../../src/renderer/src/store/turn-content';
import { citationSnapshot } from '../support/citation-snapshot';
import { nextTurn, waitFor } from '../support/wait-for';

let bridge: ConversationBridge;
let host: BridgeHost;
let conversations: ConversationStore;

beforeAll(async () => {
  bridge = await openConversationBridge();
  host = bridge.host;
  conversations = bridge.conversations;
});
afterAll(() => bridge.close());
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});
const stored = (title: string, turns: ConversationTurn[]): Promise<Conversation> => bridge.stored(title, turns);

/** A turn with an answer of its own (no two alike), citing two signals of 50. */
function turn(n: number): ConversationTurn {
  const ids = [`sig_${n % 50}`, `sig_${(n * 7) % 50}`];
  const text = `Answer ${n}: Zudio opened ${n} stores in Pune [${ids[0]}]. Margins moved ${n % 9}% [${ids[1]}].`;
  return {
    id: `trn_${n.toString(16).padStart(6, '0')}`,
    question: `Question ${n}?`,
    askedAt: new Date(Date.UTC(2026, 10, 1, 0, 0, n)).toISOString(),
    answer: {
      text,
      status: n % 97 === 5 ? 'incomplete' : 'done',
      error: null,
      citations: ids.map((id) => citationSnapshot(id, { body: `The body of ${id}.`, metrics: { stores: n }, citedAt: new Date(Date.UTC(2026, 10, 1, 0, n)).toISOString() })),
      confidence: (n % 10) / 10,
      confidenceTrace: [0.5, (n % 10) / 10],
      promotion: null,
      support: [{ sentence: text.slice(0, text.indexOf('.') + 1), citation: ids[0]!, start: 0, end: 8 }],
    },
  };
}

const state = () => useAppStore.getState();
const heldCount = (): number => state().turns.filter((t) => t.answer !== null).length;
/** Waits until `done` holds (the slice reads ranges asynchronously), at most 5 s. */
const until = async (done: () => boolean): Promise<void> => void (await waitFor(done, { timeout: 5_000, interval: 10, what: 'the window\'s reads' }));
const json = (value: unknown): string => JSON.stringify(value);

describe('chat slice: a window over turn content', () => {
  it('opens 1,000 turns holding the answers at the end only, and every turn reads back as main stores it', async () => {
    const turns = Array.from({ length: 1_000 }, (_, n) => turn(n));
    const conversation = await stored('Long', turns);
    await state().openConversation(conversation.id);
    expect(state().turns.map(({ id, question, status }) => ({ id, question, status }))).toEqual(turns.map(({ id, question, answer }) => ({ id, question, status: answer.status })));
    expect(heldCount()).toBeLessThanOrEqual(2 * WINDOW_PAD);
    expect(state().activeConversation).not.toHaveProperty('turns');

    // Rows shown 8 at a time, moved from the top to the end, as a reader scrolling down would.
    const ROWS = 8;
    const readBack = new Map<string, string>();
    let releases: Array<() => void> = [];
    for (let start = 0; start < turns.length; start += 5) {
      const next = state().turns.slice(start, start + ROWS).map((t) => state().showTurn(t.rowKey ?? t.id));
      for (const release of releases) release();
      releases = next;
      const rows = state().turns.slice(start, start + ROWS);
      await until(() => rows.every((row) => state().turns.find((t) => t.id === row.id)!.answer !== null));
      await nextTurn(); // the reconcile queued by the read's end has run
      expect(heldCount()).toBeLessThanOrEqual(ROWS + 2 * WINDOW_PAD);
      for (const t of state().turns) if (t.answer) readBack.set(t.id, json(t.answer));
    }
    for (const release of releases) release();
    expect(readBack.size).toBe(turns.length);
    for (const t of turns) expect(readBack.get(t.id), t.id).toBe(json(t.answer));
  });

  it('rebuilds its shared strings after a drop without changing any answer, also across a switch while a rebuild waits', async () => {
    const turns = Array.from({ length: 300 }, (_, n) => turn(n + 6_000));
    const conversation = await stored('Rebuilt', turns);
    await state().openConversation(conversation.id);
    const byId = new Map(turns.map((t) => [t.id, json(t.answer)]));
    const heldAsStored = (): void => {
      for (const t of state().turns) if (t.answer) expect(json(t.answer), t.id).toBe(byId.get(t.id));
    };
    // Jumps of 60 rows: each drops answers, and the rebuild (250 ms after the last drop) runs.
    const rebuilds = vi.spyOn(TurnContent.prototype, 'retain'); // counts the rebuilds; each runs as written
    for (const start of [0, 60, 120, 180, 240]) {
      const ran = rebuilds.mock.calls.length;
      const releases = state().turns.slice(start, start + 8).map((t) => state().showTurn(t.rowKey ?? t.id));
      await until(() => state().turns.slice(start, start + 8).every((t) => t.answer !== null));
      await waitFor(() => rebuilds.mock.calls.length > ran, { what: 'the rebuild after the drop' });
      heldAsStored();
      for (const release of releases) release();
    }
    // A drop, then another conversation opened before its rebuild runs: the new one reads as stored.
    // Time is the subject here (the rebuild waits 250 ms): from the drop on, timers are fake, and
    // every timer the switch left is run at once.
    const other = Array.from({ length: 30 }, (_, n) => turn(n + 7_000));
    const switchedTo = await stored('Switched to', other);
    const releases = state().turns.slice(100, 108).map((t) => state().showTurn(t.rowKey ?? t.id));
    await until(() => state().turns.slice(100, 108).every((t) => t.answer !== null));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    for (const release of releases) release();
    await nextTurn(); // the drop's reconcile has run and queued its rebuild
    await state().openConversation(switchedTo.id);
    await vi.runAllTimersAsync();
    vi.useRealTimers();
    expect(state().turns.map((t) => t.id)).toEqual(other.map((t) => t.id));
    for (const t of state().turns) expect(json(t.answer), t.id).toBe(json(other.find((x) => x.id === t.id)!.answer));
  });

  it('reads turns by id, and refuses a bad read with a clear error', async () => {
    const conversation = await stored('Reads', [turn(1), turn(2)]);
    const many = Array.from({ length: 201 }, (_, n) => turn(n).id);
    const over = await host.invoke('conversations.turns', { id: conversation.id, turnIds: many });
    expect(over).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    expect(json(over)).toContain('at most 200');
    expect(await host.invoke('conversations.turns', { id: conversation.id, turnIds: [] })).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    expect(await host.invoke('conversations.turns', { id: conversation.id, turnIds: ['x'.repeat(65)] })).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    expect(await host.invoke('conversations.turns', { id: 'cnv_0000000000000000', turnIds: [turn(1).id] })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    // In the conversation's order, whatever order they were asked in; ids it does not have are left out.
    const read = await host.invoke('conversations.turns', { id: conversation.id, turnIds: [turn(2).id, 'trn_missing', turn(1).id] });
    expect(read).toMatchObject({ ok: true, value: { total: 2 } });
    expect(json((read as { value: { turns: unknown } }).value.turns)).toBe(json([turn(1), turn(2)]));
  });

  it('reads back a turn that main keeps in another place than the list shows it', async () => {
    // Main stores a retried turn at its end; the list keeps it in the row it was asked in. Here
    // main's order is the reverse of the list's, the extreme case of it.
    const turns = Array.from({ length: 100 }, (_, n) => turn(n + 3_000));
    const conversation = await stored('Out of order', [...turns].reverse());
    await state().openConversation(conversation.id);
    useAppStore.setState({ turns: [...state().turns].reverse() });
    const release = state().showTurn(state().turns[0]!.id);
    await until(() => state().turns.slice(0, 1 + WINDOW_PAD).every((t) => t.answer !== null));
    expect(state().turns.some((t) => t.readError)).toBe(false);
    for (const t of state().turns.slice(0, 1 + WINDOW_PAD)) expect(json(t.answer), t.id).toBe(json(turns.find((x) => x.id === t.id)!.answer));
    release();
  });

  it('a read for a conversation left while it was under way lands nowhere', async () => {
    const first = await stored('Left', Array.from({ length: 100 }, (_, n) => turn(n + 4_000)));
    const second = await stored('Opened', Array.from({ length: 3 }, (_, n) => turn(n + 5_000)));
    await state().openConversation(first.id);
    const reads = vi.spyOn(host, 'invoke'); // sees each read main answers; each runs as written
    const release = state().showTurn(state().turns[0]!.id); // starts a read of the first rows
    await state().openConversation(second.id);
    release();
    // The read for the first conversation has come back (and was handled) before looking.
    const turnReads = (): string[] => reads.mock.calls.flatMap((call, i) => (call[0] === 'conversations.turns' ? [reads.mock.settledResults[i]?.type ?? 'incomplete'] : []));
    await waitFor(() => turnReads().length > 0 && turnReads().every((settled) => settled !== 'incomplete'), { what: 'the read for the conversation left' });
    await nextTurn();
    expect(state().activeConversation?.id).toBe(second.id);
    expect(state().turns.map((t) => t.id)).toEqual([5_000, 5_001, 5_002].map((n) => turn(n).id));
    expect(state().turns.every((t) => t.answer !== null && !t.readError)).toBe(true);
  });

  it('a failed read keeps the question and says so; the retry reads the answer back', async () => {
    const turns = Array.from({ length: 120 }, (_, n) => turn(n + 2_000));
    const conversation = await stored('Deleted meanwhile', turns);
    await state().openConversation(conversation.id);
    expect(state().turns[0]!.answer).toBeNull();
    // Main no longer has it: the rows at the top cannot be read back.
    expect(await conversations.remove(conversation.id)).toBe(true);
    const release = state().showTurn(state().turns[0]!.id);
    await until(() => state().turns[0]!.readError !== undefined);
    expect(state().turns[0]).toMatchObject({ id: turns[0]!.id, question: turns[0]!.question, status: 'done', answer: null });
    expect(state().turns[0]!.readError).toMatch(/no longer exists/);
    // Restored: the retry reads every row of the window back, as stored.
    expect(await conversations.restore(conversation.id)).toBeTruthy();
    state().rereadTurns();
    await until(() => state().turns.slice(0, 1 + WINDOW_PAD).every((t) => t.answer !== null));
    expect(state().turns.some((t) => t.readError)).toBe(false);
    expect(json(state().turns[0]!.answer)).toBe(json(turns[0]!.answer));
    release();
  });
});
