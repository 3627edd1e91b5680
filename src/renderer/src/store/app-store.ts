/**
 * One zustand store of typed slices (STYLE §5). The renderer's only way out is the bridge;
 * this store never sees a secret (credential status only: set/not set, last four).
 * Conversations live in the main process; this store shows the open one and its stream.
 */
import { create, type StateCreator } from 'zustand';
import type { BridgeError, CredentialStatus, ServiceStatus, Settings, StreamMessage } from '../../../shared/bridge-contract';
import { applyAskEvent, emptyAnswer, type Conversation, type ConversationSummary, type TurnAnswerState } from '../../../shared/conversation';
import type { HealthView } from '../../../shared/health';
import type { ResearchMode, ResearchRunSummary } from '../../../shared/research';
import { clarity } from '../bridge/clarity';

export interface TurnView {
  /** The stored turn id, or a temporary one until main assigns it. */
  id: string;
  question: string;
  answer: TurnAnswerState;
  /** UI updates applied while streaming (tests and the benchmark read it). */
  updates: number;
}

export interface ChatSlice {
  conversations: ConversationSummary[];
  activeConversation: Conversation | null;
  turns: TurnView[];
  draft: string;
  activeStreamId: string | null;
  /** Turn being answered (temporary or stored id). */
  streamingTurnId: string | null;
  recentlyDeleted: { id: string; title: string } | null;
  /** A message for the user about conversations (failed rename, corrupt file…). */
  chatNotice: string | null;
  setDraft(text: string): void;
  loadConversations(): Promise<void>;
  openConversation(id: string): Promise<void>;
  newConversation(): Promise<void>;
  renameConversation(id: string, title: string): Promise<boolean>;
  deleteConversation(id: string): Promise<void>;
  undoDelete(): Promise<void>;
  ask(): Promise<void>;
  retry(turnId: string): Promise<void>;
  cancel(): void;
  share(isPublic: boolean): Promise<{ ok: true; url: string | null } | { ok: false; message: string }>;
  applyStream(turnId: string, messages: StreamMessage[]): void;
}

export interface ServiceSlice {
  serviceStatus: ServiceStatus | null;
  credentialStatus: CredentialStatus | null;
  settings: Settings | null;
  connect(): () => void;
  setCredentialStatus(status: CredentialStatus): void;
  setServiceStatus(status: ServiceStatus): void;
}

export interface ResearchSlice {
  runs: ResearchRunSummary[];
  openReportId: string | null;
  /** In-app notices ("report ready"), newest last. */
  notices: Array<{ id: string; text: string; runId?: string }>;
  researchError: string | null;
  loadRuns(): Promise<void>;
  startResearch(topic: string, preset?: string, mode?: ResearchMode): Promise<boolean>;
  cancelResearch(id: string): Promise<void>;
  retryResearch(id: string): Promise<void>;
  openReport(id: string | null): void;
  dismissNotice(id: string): void;
}

export interface HealthSlice {
  health: HealthView | null;
  watchHealth(): () => void;
}

export type View = 'chat' | 'research' | 'health' | 'library' | 'settings';

export interface UiSlice {
  view: View;
  /** The citation open in the side panel: which answer, which signal. */
  selectedCitation: { turnId: string; citationId: string } | null;
  /** Why settings were opened for the user (e.g. a 401), shown at the top of settings. */
  settingsNotice: string | null;
  setView(view: View, notice?: string | null): void;
  selectCitation(selection: { turnId: string; citationId: string } | null): void;
}

export type AppState = ChatSlice & ServiceSlice & UiSlice & ResearchSlice & HealthSlice;

const tempId = (prefix: string): string => `${prefix}_${Math.random().toString(36).slice(2, 10)}${Date.now().toString(36)}`;

const turnsOf = (conversation: Conversation): TurnView[] =>
  conversation.turns.map((turn) => ({ id: turn.id, question: turn.question, answer: turn.answer, updates: 0 }));

/**
 * Records, once the frame showing this batch has painted, how long since main received the
 * bytes. A message posted from a frame callback runs right after that frame is painted; called
 * outside one (the last batch of a stream), it waits for the next frame first.
 */
function markPainted(receivedAt: number, inFrameCallback: boolean): void {
  const afterPaint = (): void => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      performance.mark('stream-painted', { detail: { latencyMs: performance.timeOrigin + performance.now() - receivedAt } });
      channel.port1.close();
    };
    channel.port2.postMessage(null);
  };
  if (inFrameCallback) afterPaint();
  else requestAnimationFrame(afterPaint);
}

const createChatSlice: StateCreator<AppState, [], [], ChatSlice> = (set, get) => {
  /** Subscribe first, then start (STYLE §4); messages are applied once per animation frame. */
  async function runStream(turnId: string, question: string, retryTurnId?: string): Promise<void> {
    const bridge = clarity();
    const conversationId = get().activeConversation?.id;
    const streamId = tempId('ask');
    let buffer: StreamMessage[] = [];
    let scheduled = false;
    let currentTurnId = turnId;
    const flush = (inFrameCallback: boolean): void => {
      scheduled = false;
      const batch = buffer;
      buffer = [];
      if (batch.length === 0) return;
      // Main names the stored turn in its first event; follow it from then on.
      for (const message of batch) {
        if (message.kind !== 'events') continue;
        for (const event of message.events) {
          if (event.type === 'turn' && event.turnId !== currentTurnId) {
            const from = currentTurnId;
            currentTurnId = event.turnId;
            set((state) => ({
              turns: state.turns.map((t) => (t.id === from ? { ...t, id: event.turnId } : t)),
              streamingTurnId: state.streamingTurnId === from ? event.turnId : state.streamingTurnId,
            }));
          }
        }
      }
      get().applyStream(currentTurnId, batch);
      // Latency figure (npm run bench): from main receiving the bytes to this batch painted.
      const receivedAt = batch.reduce<number | null>((first, m) => (m.kind === 'events' && m.receivedAt !== undefined && (first === null || m.receivedAt < first) ? m.receivedAt : first), null);
      if (receivedAt !== null) markPainted(receivedAt, inFrameCallback);
    };
    const unsubscribe = bridge.onStreamMessage((message) => {
      if (message.streamId !== streamId) return;
      buffer.push(message);
      if (message.kind === 'done' || message.kind === 'error') {
        unsubscribe();
        flush(false);
        return;
      }
      if (!scheduled) {
        scheduled = true;
        requestAnimationFrame(() => flush(true));
      }
    });
    set({ activeStreamId: streamId, streamingTurnId: turnId });
    const started = await bridge.startStream(streamId, 'ask', {
      question,
      ...(conversationId ? { conversationId } : {}),
      ...(retryTurnId ? { retryTurnId } : {}),
    });
    if (!started.ok) {
      unsubscribe();
      get().applyStream(currentTurnId, [{ streamId, kind: 'error', error: started.error, incomplete: false }]);
    }
  }

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
      const result = await clarity().invoke('conversations.get', { id });
      if (!result.ok) {
        set({ chatNotice: result.error.message });
        await refreshList();
        return;
      }
      set({ activeConversation: result.value, turns: turnsOf(result.value), selectedCitation: null, chatNotice: null });
    },

    async newConversation() {
      if (get().activeStreamId) return;
      const result = await clarity().invoke('conversations.create');
      if (!result.ok) {
        set({ chatNotice: result.error.message });
        return;
      }
      set({ activeConversation: result.value, turns: [], selectedCitation: null });
      await refreshList();
    },

    async renameConversation(id, title) {
      const result = await clarity().invoke('conversations.rename', { id, title });
      if (!result.ok) {
        set({ chatNotice: result.error.message });
        return false;
      }
      if (get().activeConversation?.id === id) set({ activeConversation: result.value });
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
      set({ recentlyDeleted: { id, title } });
      if (get().activeConversation?.id === id) set({ activeConversation: null, turns: [], selectedCitation: null });
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
        set({ activeConversation: created.value, turns: [] });
      }
      const turnId = tempId('pending');
      set((state) => ({ draft: '', turns: [...state.turns, { id: turnId, question, answer: emptyAnswer(), updates: 0 }] }));
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
            answer = { ...answer, status: 'done', error: null };
            activeStreamId = null;
            streamingTurnId = null;
          } else if (message.kind === 'error') {
            activeStreamId = null;
            streamingTurnId = null;
            const cancelled = message.error.code === 'aborted';
            answer = { ...answer, status: cancelled ? 'cancelled' : answer.text.length > 0 ? 'incomplete' : 'failed', error: cancelled ? null : message.error };
            if (message.error.code === 'unauthorized' || message.error.code === 'forbidden') {
              settingsNotice = credentialNotice(message.error);
              // The question typed is never lost: it goes back into the composer.
              if (!get().draft.trim()) restoreDraft = turn.question;
            }
          }
        }
        return { ...turn, answer, updates: turn.updates + 1 };
      });
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

const createServiceSlice: StateCreator<AppState, [], [], ServiceSlice> = (set, get) => ({
  serviceStatus: null,
  credentialStatus: null,
  settings: null,
  setCredentialStatus: (status) => set({ credentialStatus: status }),
  setServiceStatus: (status) => set({ serviceStatus: status }),
  connect() {
    const bridge = clarity();
    const offStatus = bridge.onPush('service.status', (status) => set({ serviceStatus: status }));
    const offCredentials = bridge.onPush('credentials.status', (status) => set({ credentialStatus: status }));
    const offResearch = bridge.onPush('research.updated', (run) => {
      const previous = get().runs.find((r) => r.id === run.id);
      const runs = previous ? get().runs.map((r) => (r.id === run.id ? run : r)) : [run, ...get().runs];
      const ready = run.state === 'completed' && previous?.state !== 'completed';
      set({
        runs,
        ...(ready ? { notices: [...get().notices, { id: `${run.id}-ready`, text: `Report ready: ${run.topic}`, runId: run.id }] } : {}),
      });
    });
    void bridge.invoke('service.status').then((r) => r.ok && set({ serviceStatus: r.value }));
    void bridge.invoke('credentials.status').then((r) => r.ok && set({ credentialStatus: r.value }));
    void bridge.invoke('settings.get').then((r) => r.ok && set({ settings: r.value }));
    const offHealth = bridge.onPush('health.updated', (view) => set({ health: view }));
    return () => {
      offStatus();
      offCredentials();
      offResearch();
      offHealth();
    };
  },
});

const createResearchSlice: StateCreator<AppState, [], [], ResearchSlice> = (set, get) => ({
  runs: [],
  openReportId: null,
  notices: [],
  researchError: null,
  async loadRuns() {
    const result = await clarity().invoke('research.list');
    if (result.ok) set({ runs: result.value });
  },
  async startResearch(topic, preset = 'standard', mode = 'wait') {
    const result = await clarity().invoke('research.start', { topic, preset, mode });
    if (!result.ok) {
      set({ researchError: result.error.message });
      return false;
    }
    const known = get().runs.some((r) => r.id === result.value.id);
    set({ researchError: null, runs: known ? get().runs : [result.value, ...get().runs] });
    return true;
  },
  async cancelResearch(id) {
    const result = await clarity().invoke('research.cancel', { id });
    if (!result.ok) set({ researchError: result.error.message });
  },
  async retryResearch(id) {
    const result = await clarity().invoke('research.retry', { id });
    if (!result.ok) set({ researchError: result.error.message });
  },
  openReport: (id) => set({ openReportId: id, selectedCitation: null }),
  dismissNotice: (id) => set({ notices: get().notices.filter((n) => n.id !== id) }),
});

const createHealthSlice: StateCreator<AppState, [], [], HealthSlice> = (set) => ({
  health: null,
  watchHealth() {
    const bridge = clarity();
    void bridge.invoke('health.watch').then((result) => result.ok && set({ health: result.value }));
    return () => void bridge.invoke('health.unwatch');
  },
});

const createUiSlice: StateCreator<AppState, [], [], UiSlice> = (set) => ({
  view: 'chat',
  selectedCitation: null,
  settingsNotice: null,
  setView: (view, notice = null) => set({ view, settingsNotice: notice }),
  selectCitation: (selection) => set({ selectedCitation: selection }),
});

export const useAppStore = create<AppState>()((...args) => ({
  ...createChatSlice(...args),
  ...createServiceSlice(...args),
  ...createUiSlice(...args),
  ...createResearchSlice(...args),
  ...createHealthSlice(...args),
}));
