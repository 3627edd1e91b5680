/**
 * The open conversation, its turns and its stream. Conversations live in main; this slice
 * shows the open one. The stream itself is read by ../bridge/stream-client.ts.
 */
import type { BridgeError, StreamMessage } from '../../../shared/bridge-contract';
import { applyAskEvent, emptyAnswer, endAnswer } from '../../../shared/answer-rules';
import type { Conversation } from '../../../shared/conversation';
import { clarity } from '../bridge/clarity';
import { markStreamPainted } from '../bridge/latency-mark';
import { startAskStream } from '../bridge/stream-client';
import { TurnContent } from './turn-content';
import type { ChatSlice, SliceCreator, TurnView } from './types';

const tempId = (prefix: string): string => `${prefix}_${Math.random().toString(36).slice(2, 10)}${Date.now().toString(36)}`;

const turnsOf = (conversation: Conversation): TurnView[] =>
  conversation.turns.map((turn) => ({ id: turn.id, question: turn.question, answer: turn.answer, updates: 0 }));

export const createChatSlice: SliceCreator<ChatSlice> = (set, get) => {
  /** The open conversation's shared strings (turn-content.ts): a new table for each conversation opened or made. */
  let content = new TurnContent();
  const newContent = (): TurnContent => {
    content.close();
    content = new TurnContent();
    return content;
  };

  async function runStream(turnId: string, question: string, retryTurnId?: string): Promise<void> {
    const conversationId = get().activeConversation?.id;
    const streamId = tempId('ask');
    let currentTurnId = turnId;
    const onBatch = (batch: StreamMessage[], inFrameCallback: boolean): void => {
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
              turns: state.turns.map((t) => (t.id === from ? { ...t, id: event.turnId, rowKey: t.rowKey ?? from } : t)),
              streamingTurnId: state.streamingTurnId === from ? event.turnId : state.streamingTurnId,
            }));
          }
        }
      }
      get().applyStream(currentTurnId, batch);
      markStreamPainted(batch, inFrameCallback);
    };
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
      set({ activeConversation: result.value, turns: turnsOf(result.value), selectedCitation: null, chatNotice: null });
      // After the turns are shown, in slices: their answers share the strings they repeat.
      newContent().later(result.value.turns.map((turn) => turn.answer));
    },

    async newConversation() {
      if (get().activeStreamId) return;
      const result = await switchTo(clarity().invoke('conversations.create'));
      if (!result.ok) {
        set({ chatNotice: result.error.message });
        return;
      }
      newContent();
      set({ activeConversation: result.value, turns: [], selectedCitation: null, chatNotice: null });
      await refreshList();
    },

    async renameConversation(id, title) {
      const result = await clarity().invoke('conversations.rename', { id, title });
      if (!result.ok) {
        set({ chatNotice: result.error.message });
        return false;
      }
      if (get().activeConversation?.id === id) set({ activeConversation: result.value });
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
        set({ activeConversation: created.value, turns: [] });
      }
      const turnId = tempId('pending');
      set((state) => ({ draft: '', chatNotice: null, turns: [...state.turns, { id: turnId, question, answer: emptyAnswer(), updates: 0 }] }));
      await runStream(turnId, question);
      await refreshList();
    },

    async retry(turnId) {
      const turn = get().turns.find((t) => t.id === turnId);
      if (!turn || get().activeStreamId) return;
      set((state) => ({ turns: state.turns.map((t) => (t.id === turnId ? { ...t, answer: emptyAnswer(), updates: 0 } : t)) }));
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
      set({ activeConversation: { ...conversation, publicUrl: result.value.publicUrl } });
      await refreshList();
      return { ok: true, url: result.value.publicUrl };
    },

    applyStream(turnId, batch) {
      let activeStreamId = get().activeStreamId;
      let streamingTurnId = get().streamingTurnId;
      let settingsNotice: string | null = null;
      let restoreDraft: string | null = null;
      let sessionSlug: string | undefined;
      const turns = get().turns.map((turn) => {
        if (turn.id !== turnId) return turn;
        let answer = turn.answer;
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
        return { ...turn, answer, updates: turn.updates + 1 };
      });
      // The stream's end frees the composer even if its turn is no longer shown (main keeps the
      // answer in its own conversation): otherwise Stop stayed up and no question could be asked.
      if (batch.some((message) => message.kind === 'done' || message.kind === 'error') && get().activeStreamId && !turns.some((turn) => turn.id === turnId)) {
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
    },
  };
};

function credentialNotice(error: BridgeError): string {
  return error.code === 'unauthorized'
    ? `The service needs a valid credential (${error.message}) Paste a JWT or an API key below; your question is back in the composer.`
    : `Your credential is not allowed to do this (${error.message}) Use a credential with access; your question is back in the composer.`;
}
