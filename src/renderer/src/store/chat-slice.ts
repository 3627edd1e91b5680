/**
 * The open conversation, its turns and its stream. Conversations live in main; this slice
 * shows the open one. The stream itself is read by ../bridge/stream-client.ts.
 *
 * Turn content is windowed (issue 31, decision 0028): every turn keeps its id, key, question and
 * status; its answer is held only while the turn is within WINDOW_PAD rows of a row the list
 * renders (rows say so through `showTurn`), is streaming, or has its citation open. A finished
 * turn leaving the window drops its answer; those coming back are read from main by id
 * (`conversations.turns`), one request at a time. Holding every turn's content cannot meet the
 * soak's heap goal: a bare page holding the turns parsed costs 14.5 KB each (bench/notes.md).
 */
import type { BridgeError, Result, StreamMessage, TurnRead } from '../../../shared/bridge-contract';
import { applyAskEvent, emptyAnswer, endAnswer } from '../../../shared/answer-rules';
import { TURN_READ_MAX } from '../../../shared/turn-reads';
import type { Conversation, ConversationTurn } from '../../../shared/conversation';
import { clarity } from '../bridge/clarity';
import { markStreamPainted } from '../bridge/latency-mark';
import { startAskStream } from '../bridge/stream-client';
import { applyWithEndAfterPaint } from './stream-end';
import { TurnContent } from './turn-content';
import type { ChatSlice, ConversationHead, SliceCreator, TurnEntry } from './types';

const tempId = (prefix: string): string => `${prefix}_${Math.random().toString(36).slice(2, 10)}${Date.now().toString(36)}`;

/** Rows held beyond each end of the rendered ones: a scroll of a screen or two finds its answers held. */
export const WINDOW_PAD = 20;

const headOf = ({ turns: _turns, ...head }: Conversation): ConversationHead => head;

/** A conversation from main: every turn, the answers of the last `held` only (the list opens at the end). */
const turnsOf = (conversation: Conversation, held: number): TurnEntry[] =>
  conversation.turns.map((turn, i) => ({
    id: turn.id,
    question: turn.question,
    status: turn.answer.status,
    answer: i >= conversation.turns.length - held ? turn.answer : null,
    stored: true,
    updates: 0,
  }));

const rowKeyOf = (turn: TurnEntry): string => turn.rowKey ?? turn.id;
const finished = (turn: TurnEntry): boolean => turn.status !== 'waiting' && turn.status !== 'streaming';

export const createChatSlice: SliceCreator<ChatSlice> = (set, get) => {
  /** The open conversation's shared strings (turn-content.ts): a new table for each conversation opened or made. */
  let content = new TurnContent();
  /** Bumped with each conversation opened or made: a read for an earlier one is ignored. */
  let generation = 0;
  const newContent = (): TurnContent => {
    content.close();
    content = new TurnContent();
    // A rebuild queued for the conversation left behind has nothing to do for the new table.
    if (retainQueued) clearTimeout(retainQueued);
    retainQueued = null;
    generation += 1;
    heights.clear();
    readUnderWay = null;
    return content;
  };

  /** Rows the list renders now (a count per key: a row may mount again before its old self unmounts). */
  const shown = new Map<string, number>();
  /** Each turn's last measured height (px), by row key: its placeholder's height. */
  const heights = new Map<string, number>();
  /**
   * The read under way, if any. One at a time: a fling across a long list sends one read, then
   * one for where the window is when it ends (each read's end reconciles again), not one per frame.
   */
  let readUnderWay: object | null = null;
  let reconcileQueued = false;
  /**
   * After answers were dropped, the shared-strings table is rebuilt from those still held
   * (decision 0032), once things settle: each drop puts the rebuild off again, so a fling that
   * drops rows every frame rebuilds it once, 250 ms after it stops.
   */
  let retainQueued: ReturnType<typeof setTimeout> | null = null;
  const RETAIN_AFTER_MS = 250;
  const queueRetain = (): void => {
    if (retainQueued) clearTimeout(retainQueued);
    retainQueued = setTimeout(() => {
      retainQueued = null;
      content.retain(get().turns.flatMap((turn) => (turn.answer && finished(turn) ? [turn.answer] : [])));
    }, RETAIN_AFTER_MS);
  };
  const queueReconcile = (): void => {
    if (reconcileQueued) return;
    reconcileQueued = true;
    // After the commit's effects: the rows a scroll mounted and unmounted count as one change.
    queueMicrotask(() => {
      reconcileQueued = false;
      reconcile();
    });
  };

  /**
   * Drops the answers that left the window and reads back those that entered it. The window is
   * WINDOW_PAD rows around the rendered ones; with no row rendered (a test, a view not shown), the
   * last 2 × WINDOW_PAD, where the list opens.
   */
  function reconcile(): void {
    const { turns, streamingTurnId, selectedCitation, activeConversation } = get();
    if (!activeConversation || turns.length === 0) return;
    let first = Infinity;
    let last = -Infinity;
    turns.forEach((turn, i) => {
      if (shown.has(rowKeyOf(turn))) {
        first = Math.min(first, i);
        last = Math.max(last, i);
      }
    });
    if (first === Infinity) {
      first = turns.length - WINDOW_PAD;
      last = turns.length - 1;
    }
    const from = Math.max(0, first - WINDOW_PAD);
    const to = Math.min(turns.length, last + WINDOW_PAD + 1);
    let dropped = false;
    const wanted: string[] = [];
    const next = turns.map((turn, i) => {
      const inWindow = i >= from && i < to;
      if (turn.answer) {
        const keep = inWindow || !turn.stored || !finished(turn) || turn.id === streamingTurnId || turn.id === selectedCitation?.turnId;
        if (keep) return turn;
        dropped = true;
        return { ...turn, answer: null };
      }
      if (inWindow && turn.stored && !turn.readError && wanted.length < TURN_READ_MAX) wanted.push(turn.id);
      return turn;
    });
    if (dropped) {
      set({ turns: next });
      queueRetain();
    }
    if (wanted.length > 0 && !readUnderWay) void readTurns(activeConversation.id, wanted);
  }

  /** Reads `ids` back from main and holds what came, matched by id. */
  async function readTurns(conversationId: string, ids: string[]): Promise<void> {
    const asked = generation;
    const read = {};
    readUnderWay = read;
    let result: Result<TurnRead>;
    try {
      result = await clarity().invoke('conversations.turns', { id: conversationId, turnIds: ids });
    } catch {
      // Main's handler gone (a reload, the app closing): a failed read, with its retry.
      result = { ok: false, error: { code: 'network', message: 'The answer could not be read back from the app; it is still saved.' } };
    } finally {
      if (readUnderWay === read) readUnderWay = null;
    }
    if (asked !== generation) return;
    const found = new Map<string, ConversationTurn>();
    if (result.ok) for (const turn of result.value.turns) found.set(turn.id, turn);
    // A turn main no longer has (the conversation changed elsewhere) or a failed read: the row
    // says so and offers a retry, never a blank answer.
    const error = result.ok ? 'This answer is no longer in the saved conversation; it may have been changed elsewhere.' : result.error.message;
    const wanted = new Set(ids);
    set((state) => ({
      turns: state.turns.map((turn) => {
        if (!wanted.has(turn.id) || turn.answer) return turn;
        const stored = found.get(turn.id);
        if (!stored) return { ...turn, readError: error };
        const { readError: _readError, ...rest } = turn;
        // Shared strings for an answer main has finished; one it is still writing is taken as it is.
        const storedDone = stored.answer.status !== 'waiting' && stored.answer.status !== 'streaming';
        return { ...rest, status: stored.answer.status, answer: storedDone ? content.answer(stored.answer) : stored.answer };
      }),
    }));
    // The window may have moved while the read was under way.
    queueReconcile();
  }

  async function runStream(turnId: string, question: string, retryTurnId?: string): Promise<void> {
    const conversationId = get().activeConversation?.id;
    const streamId = tempId('ask');
    let currentTurnId = turnId;
    const apply = (batch: StreamMessage[], inFrameCallback: boolean): void => {
      // Main names the stored turn in its first event; follow it from then on.
      for (const message of batch) {
        if (message.kind !== 'events') continue;
        for (const event of message.events) {
          if (event.type === 'turn' && event.turnId !== currentTurnId) {
            const from = currentTurnId;
            currentTurnId = event.turnId;
            set((state) => ({
              // The row keeps its key (the id it was asked under): rebuilt mid-answer, it would be
              // placed from the list's estimate again and the end-following lost.
              turns: state.turns.map((t) => (t.id === from ? { ...t, id: event.turnId, rowKey: t.rowKey ?? from, stored: true } : t)),
              streamingTurnId: state.streamingTurnId === from ? event.turnId : state.streamingTurnId,
            }));
          }
        }
      }
      get().applyStream(currentTurnId, batch);
      markStreamPainted(batch, inFrameCallback);
    };
    // The last batch's text is painted before its end is applied (stream-end.ts, issue 50 round 9).
    const onBatch = (batch: StreamMessage[], inFrameCallback: boolean): void => applyWithEndAfterPaint(batch, inFrameCallback, apply);
    set({ activeStreamId: streamId, streamingTurnId: turnId });
    const started = await startAskStream({
      bridge: clarity(),
      streamId,
      args: { question, ...(conversationId ? { conversationId } : {}), ...(retryTurnId ? { retryTurnId } : {}) },
      onBatch,
    });
    if (!started.ok) get().applyStream(currentTurnId, [{ streamId, kind: 'error', error: started.error, incomplete: false }]);
  }

  /**
   * The conversation being opened or created, while main answers. A question asked in that moment
   * (New conversation, then Enter at once) waits for it, so it goes into the conversation the
   * analyst sees, not the one being left, and the switch never hides an answer as it streams.
   */
  let switching: Promise<unknown> | null = null;
  const switchTo = <T>(work: Promise<T>): Promise<T> => {
    const pending = work.finally(() => {
      if (switching === pending) switching = null;
    });
    switching = pending;
    return pending;
  };

  const refreshList = async (): Promise<void> => {
    const list = await clarity().invoke('conversations.list');
    if (list.ok) set({ conversations: list.value });
  };

  return {
    conversations: [],
    activeConversation: null,
    turns: [],
    draft: '',
    activeStreamId: null,
    streamingTurnId: null,
    recentlyDeleted: null,
    chatNotice: null,
    setDraft: (text) => set({ draft: text }),

    async loadConversations() {
      await refreshList();
      const first = get().conversations[0];
      if (first) await get().openConversation(first.id);
    },

    async openConversation(id) {
      if (get().activeStreamId) return;
      const result = await switchTo(clarity().invoke('conversations.get', { id }));
      if (!result.ok) {
        set({ chatNotice: result.error.message });
        await refreshList();
        return;
      }
      const turns = turnsOf(result.value, 2 * WINDOW_PAD);
      const table = newContent();
      // Only the conversation's head is kept: main holds the turns, the window holds their answers.
      set({ activeConversation: headOf(result.value), turns, selectedCitation: null, chatNotice: null });
      // After the turns are shown, in slices: their answers share the strings they repeat.
      table.later(turns.flatMap((turn) => (turn.answer ? [turn.answer] : [])));
      queueReconcile();
    },

    async newConversation() {
      if (get().activeStreamId) return;
      const result = await switchTo(clarity().invoke('conversations.create'));
      if (!result.ok) {
        set({ chatNotice: result.error.message });
        return;
      }
      newContent();
      set({ activeConversation: headOf(result.value), turns: [], selectedCitation: null, chatNotice: null });
      await refreshList();
    },

    async renameConversation(id, title) {
      const result = await clarity().invoke('conversations.rename', { id, title });
      if (!result.ok) {
        set({ chatNotice: result.error.message });
        return false;
      }
      if (get().activeConversation?.id === id) set({ activeConversation: headOf(result.value) });
      set({ chatNotice: null });
      await refreshList();
      return true;
    },

    async deleteConversation(id) {
      const title = get().conversations.find((c) => c.id === id)?.title ?? 'Conversation';
      const result = await clarity().invoke('conversations.delete', { id });
      if (!result.ok) {
        set({ chatNotice: result.error.message });
        return;
      }
      set({ recentlyDeleted: { id, title }, chatNotice: null });
      if (get().activeConversation?.id === id) {
        newContent();
        set({ activeConversation: null, turns: [], selectedCitation: null });
      }
      await refreshList();
    },

    async undoDelete() {
      const deleted = get().recentlyDeleted;
      if (!deleted) return;
      const result = await clarity().invoke('conversations.restore', { id: deleted.id });
      set({ recentlyDeleted: null });
      if (result.ok) {
        await refreshList();
        await get().openConversation(deleted.id);
      } else set({ chatNotice: result.error.message });
    },

    async ask() {
      if (switching) await switching.catch(() => undefined);
      const question = get().draft.trim();
      if (!question || get().activeStreamId) return;
      const retryAt = get().serviceStatus?.retryAt;
      if (retryAt && retryAt > Date.now()) return;
      if (!get().activeConversation) {
        const created = await clarity().invoke('conversations.create');
        if (!created.ok) {
          set({ chatNotice: created.error.message });
          return;
        }
        newContent();
        set({ activeConversation: headOf(created.value), turns: [] });
      }
      const turnId = tempId('pending');
      set((state) => ({ draft: '', chatNotice: null, turns: [...state.turns, { id: turnId, question, status: 'waiting', answer: emptyAnswer(), stored: false, updates: 0 }] }));
      await runStream(turnId, question);
      await refreshList();
    },

    async retry(turnId) {
      const turn = get().turns.find((t) => t.id === turnId);
      if (!turn || get().activeStreamId) return;
      set((state) => ({ turns: state.turns.map((t) => (t.id === turnId ? { ...t, status: 'waiting', answer: emptyAnswer(), readError: undefined, updates: 0 } : t)) }));
      await runStream(turnId, turn.question, turnId.startsWith('trn_') ? turnId : undefined);
    },

    cancel() {
      const streamId = get().activeStreamId;
      if (streamId) void clarity().abortStream(streamId);
    },

    async share(isPublic) {
      const conversation = get().activeConversation;
      if (!conversation) return { ok: false, message: 'Open a conversation first.' };
      const result = await clarity().invoke('conversations.share', { id: conversation.id, public: isPublic });
      if (!result.ok) return { ok: false, message: result.error.message };
      // Another conversation opened meanwhile keeps its own head (its turns are what the slice holds).
      if (get().activeConversation?.id === conversation.id) set({ activeConversation: { ...get().activeConversation!, publicUrl: result.value.publicUrl } });
      await refreshList();
      return { ok: true, url: result.value.publicUrl };
    },

    applyStream(turnId, batch) {
      let activeStreamId = get().activeStreamId;
      let streamingTurnId = get().streamingTurnId;
      let settingsNotice: string | null = null;
      let restoreDraft: string | null = null;
      let sessionSlug: string | undefined;
      // The batch's turn, searched from the end (the streaming turn is usually the last): a batch
      // reads and copies the one turn it changes, not each of the conversation's (issue 50, round 9).
      let turns = get().turns;
      let at = turns.length - 1;
      while (at >= 0 && turns[at]!.id !== turnId) at -= 1;
      const applied = (turn: TurnEntry): TurnEntry => {
        // The streaming turn is always held; a retried one gets a fresh answer before it streams.
        let answer = turn.answer ?? emptyAnswer();
        for (const message of batch) {
          if (message.kind === 'open') answer = { ...answer, status: 'streaming' };
          else if (message.kind === 'events') {
            for (const event of message.events) {
              answer = applyAskEvent(answer, event);
              if (event.type === 'meta' && event.sessionSlug) sessionSlug = event.sessionSlug;
            }
          } else if (message.kind === 'done') {
            answer = endAnswer(answer, null);
            activeStreamId = null;
            streamingTurnId = null;
          } else if (message.kind === 'error') {
            activeStreamId = null;
            streamingTurnId = null;
            answer = endAnswer(answer, message.error);
            if (message.error.code === 'unauthorized' || message.error.code === 'forbidden') {
              settingsNotice = credentialNotice(message.error);
              // The question typed is never lost: it goes back into the composer.
              if (!get().draft.trim()) restoreDraft = turn.question;
            }
          }
        }
        // A finished answer keeps one copy of the strings the conversation already holds.
        if (answer.status !== 'waiting' && answer.status !== 'streaming') answer = content.answer(answer);
        return { ...turn, status: answer.status, answer, updates: turn.updates + 1 };
      };
      if (at >= 0) {
        turns = turns.slice();
        turns[at] = applied(turns[at]!);
      }
      // The stream's end frees the composer even if its turn is no longer shown (main keeps the
      // answer in its own conversation): otherwise Stop stayed up and no question could be asked.
      if (batch.some((message) => message.kind === 'done' || message.kind === 'error') && get().activeStreamId && at < 0) {
        activeStreamId = null;
        streamingTurnId = null;
      }
      const conversation = get().activeConversation;
      set({
        turns,
        activeStreamId,
        streamingTurnId,
        ...(restoreDraft !== null ? { draft: restoreDraft } : {}),
        ...(conversation && sessionSlug ? { activeConversation: { ...conversation, sessionSlug } } : {}),
      });
      if (settingsNotice) get().setView('settings', settingsNotice);
      // An ended answer may now leave the window (it was kept while streaming).
      if (streamingTurnId === null) queueReconcile();
    },

    showTurn(rowKey) {
      shown.set(rowKey, (shown.get(rowKey) ?? 0) + 1);
      queueReconcile();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const count = (shown.get(rowKey) ?? 1) - 1;
        if (count > 0) shown.set(rowKey, count);
        else shown.delete(rowKey);
        queueReconcile();
      };
    },

    rereadTurns() {
      if (!get().turns.some((turn) => turn.readError)) return;
      set((state) => ({ turns: state.turns.map((turn) => (turn.readError ? { ...turn, readError: undefined } : turn)) }));
      queueReconcile();
    },

    turnHeight: (rowKey) => heights.get(rowKey),
    noteTurnHeight(rowKey, height) {
      if (height > 0) heights.set(rowKey, height);
    },
  };
};

function credentialNotice(error: BridgeError): string {
  return error.code === 'unauthorized'
    ? `The service needs a valid credential (${error.message}) Paste a JWT or an API key below; your question is back in the composer.`
    : `Your credential is not allowed to do this (${error.message}) Use a credential with access; your question is back in the composer.`;
}
