/**
 * One zustand store of typed slices (STYLE §5). The renderer's only way out is the bridge;
 * this store never sees a secret (credential status only: set/not set, last four).
 */
import { create, type StateCreator } from 'zustand';
import type {
  AskEvent,
  BridgeError,
  CredentialStatus,
  ServiceStatus,
  Settings,
  StreamMessage,
} from '../../../shared/bridge-contract';
import type { CitationPayload } from '../../../shared/service-schemas';
import { clarity } from '../bridge/clarity';

export type AnswerStatus = 'waiting' | 'streaming' | 'done' | 'incomplete' | 'failed' | 'cancelled';

export interface QuestionMessage {
  id: string;
  role: 'user';
  text: string;
}

export interface AnswerMessage {
  id: string;
  role: 'assistant';
  question: string;
  /** Earlier user turns sent with this question, for retry. */
  history: string[];
  text: string;
  status: AnswerStatus;
  error: BridgeError | null;
  citations: CitationPayload[];
  confidence: number | null;
  confidenceTrace: number[];
  promotion: { topic: string; preset: string; reason?: string } | null;
  streamId: string | null;
  /** Number of UI updates applied while streaming (the e2e test reads it). */
  updates: number;
}

export type ChatMessage = QuestionMessage | AnswerMessage;

export interface ChatSlice {
  messages: ChatMessage[];
  draft: string;
  sessionId: string | null;
  sessionSlug: string | null;
  activeStreamId: string | null;
  setDraft(text: string): void;
  ask(): Promise<void>;
  retry(answerId: string): Promise<void>;
  cancel(): void;
  newConversation(): void;
  applyStream(answerId: string, messages: StreamMessage[]): void;
}

export interface ServiceSlice {
  serviceStatus: ServiceStatus | null;
  credentialStatus: CredentialStatus | null;
  settings: Settings | null;
  connect(): () => void;
  setCredentialStatus(status: CredentialStatus): void;
  setServiceStatus(status: ServiceStatus): void;
}

export type View = 'chat' | 'settings';

export interface UiSlice {
  view: View;
  selectedCitationId: string | null;
  /** Why settings were opened for the user (e.g. a 401), shown at the top of settings. */
  settingsNotice: string | null;
  setView(view: View, notice?: string | null): void;
  selectCitation(id: string | null): void;
}

export type AppState = ChatSlice & ServiceSlice & UiSlice;

const newId = (prefix: string): string => `${prefix}_${Math.random().toString(36).slice(2, 10)}${Date.now().toString(36)}`;

const isAnswer = (message: ChatMessage): message is AnswerMessage => message.role === 'assistant';

function applyEvent(answer: AnswerMessage, event: AskEvent, chat: { sessionId: string | null; sessionSlug: string | null }): AnswerMessage {
  switch (event.type) {
    case 'text':
      return { ...answer, text: answer.text + event.text, status: 'streaming' };
    case 'citation':
      if (answer.citations.some((c) => c.id === event.citation.id)) return answer;
      return { ...answer, citations: [...answer.citations, event.citation] };
    case 'confidence':
      return { ...answer, confidence: event.value, confidenceTrace: [...answer.confidenceTrace, event.value] };
    case 'promotion':
      return { ...answer, promotion: { topic: event.topic, preset: event.preset, reason: event.reason } };
    case 'meta':
      if (event.sessionId) chat.sessionId = event.sessionId;
      if (event.sessionSlug) chat.sessionSlug = event.sessionSlug;
      return answer;
  }
}

const createChatSlice: StateCreator<AppState, [], [], ChatSlice> = (set, get) => {
  /** Subscribe first, then start (STYLE §4); messages are applied once per frame. */
  async function runStream(answerId: string, question: string, history: string[]): Promise<void> {
    const bridge = clarity();
    const streamId = newId('ask');
    let buffer: StreamMessage[] = [];
    let scheduled = false;
    const flush = (): void => {
      scheduled = false;
      const batch = buffer;
      buffer = [];
      if (batch.length > 0) get().applyStream(answerId, batch);
    };
    const unsubscribe = bridge.onStreamMessage((message) => {
      if (message.streamId !== streamId) return;
      buffer.push(message);
      if (message.kind === 'done' || message.kind === 'error') {
        unsubscribe();
        flush();
        return;
      }
      if (!scheduled) {
        scheduled = true;
        requestAnimationFrame(flush);
      }
    });
    set((state) => ({
      activeStreamId: streamId,
      messages: state.messages.map((m) => (m.id === answerId && isAnswer(m) ? { ...m, streamId } : m)),
    }));
    const started = await bridge.startStream(streamId, 'ask', { question, history, ...(get().sessionId ? { sessionId: get().sessionId! } : {}) });
    if (!started.ok) {
      unsubscribe();
      get().applyStream(answerId, [{ streamId, kind: 'error', error: started.error, incomplete: false }]);
    }
  }

  return {
    messages: [],
    draft: '',
    sessionId: null,
    sessionSlug: null,
    activeStreamId: null,
    setDraft: (text) => set({ draft: text }),

    async ask() {
      const question = get().draft.trim();
      if (!question || get().activeStreamId) return;
      const retryAt = get().serviceStatus?.retryAt;
      if (retryAt && retryAt > Date.now()) return;
      const history = get()
        .messages.filter((m): m is QuestionMessage => m.role === 'user')
        .map((m) => m.text)
        .slice(-49);
      const answerId = newId('ans');
      set((state) => ({
        draft: '',
        messages: [
          ...state.messages,
          { id: newId('q'), role: 'user', text: question },
          {
            id: answerId,
            role: 'assistant',
            question,
            history,
            text: '',
            status: 'waiting',
            error: null,
            citations: [],
            confidence: null,
            confidenceTrace: [],
            promotion: null,
            streamId: null,
            updates: 0,
          },
        ],
      }));
      await runStream(answerId, question, history);
    },

    async retry(answerId) {
      const answer = get().messages.find((m): m is AnswerMessage => m.id === answerId && isAnswer(m));
      if (!answer || get().activeStreamId) return;
      set((state) => ({
        messages: state.messages.map((m) =>
          m.id === answerId && isAnswer(m)
            ? { ...m, text: '', status: 'waiting', error: null, citations: [], confidence: null, confidenceTrace: [], promotion: null, updates: 0 }
            : m,
        ),
      }));
      await runStream(answerId, answer.question, answer.history);
    },

    cancel() {
      const streamId = get().activeStreamId;
      if (!streamId) return;
      void clarity().abortStream(streamId);
    },

    newConversation() {
      get().cancel();
      set({ messages: [], sessionId: null, sessionSlug: null, activeStreamId: null, draft: get().draft });
    },

    applyStream(answerId, batch) {
      const chat = { sessionId: get().sessionId, sessionSlug: get().sessionSlug };
      let activeStreamId = get().activeStreamId;
      let openSettings: string | null = null;
      const messages = get().messages.map((m) => {
        if (m.id !== answerId || !isAnswer(m)) return m;
        let answer: AnswerMessage = { ...m, updates: m.updates + 1 };
        for (const message of batch) {
          if (message.kind === 'open') answer = { ...answer, status: 'streaming' };
          else if (message.kind === 'events') for (const event of message.events) answer = applyEvent(answer, event, chat);
          else if (message.kind === 'done') {
            answer = { ...answer, status: 'done' };
            activeStreamId = null;
          } else if (message.kind === 'error') {
            activeStreamId = null;
            const cancelled = message.error.code === 'aborted';
            answer = {
              ...answer,
              status: cancelled ? 'cancelled' : answer.text.length > 0 ? 'incomplete' : 'failed',
              error: cancelled ? null : message.error,
            };
            if (message.error.code === 'unauthorized' || message.error.code === 'forbidden') {
              openSettings =
                message.error.code === 'unauthorized'
                  ? `The service needs a credential for this (${message.error.message}). Paste a JWT or an API key below; your question is kept in the conversation.`
                  : `Your credential is not allowed to do this (${message.error.message}).`;
            }
          }
        }
        return answer;
      });
      set({ messages, activeStreamId, sessionId: chat.sessionId, sessionSlug: chat.sessionSlug });
      if (openSettings) get().setView('settings', openSettings);
    },
  };
};

const createServiceSlice: StateCreator<AppState, [], [], ServiceSlice> = (set) => ({
  serviceStatus: null,
  credentialStatus: null,
  settings: null,
  setCredentialStatus: (status) => set({ credentialStatus: status }),
  setServiceStatus: (status) => set({ serviceStatus: status }),
  connect() {
    const bridge = clarity();
    const offStatus = bridge.onPush('service.status', (status) => set({ serviceStatus: status }));
    const offCredentials = bridge.onPush('credentials.status', (status) => set({ credentialStatus: status }));
    void bridge.invoke('service.status').then((r) => r.ok && set({ serviceStatus: r.value }));
    void bridge.invoke('credentials.status').then((r) => r.ok && set({ credentialStatus: r.value }));
    void bridge.invoke('settings.get').then((r) => r.ok && set({ settings: r.value }));
    return () => {
      offStatus();
      offCredentials();
    };
  },
});

const createUiSlice: StateCreator<AppState, [], [], UiSlice> = (set) => ({
  view: 'chat',
  selectedCitationId: null,
  settingsNotice: null,
  setView: (view, notice = null) => set({ view, settingsNotice: notice }),
  selectCitation: (id) => set({ selectedCitationId: id }),
});

export const useAppStore = create<AppState>()((...args) => ({
  ...createChatSlice(...args),
  ...createServiceSlice(...args),
  ...createUiSlice(...args),
}));
