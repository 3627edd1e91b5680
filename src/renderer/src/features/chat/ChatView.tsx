import { useEffect, useState } from 'react';
import { VirtualList } from '../../app/VirtualList';
import { useAppStore } from '../../store/app-store';
import { clarity } from '../../bridge/clarity';
import { ChatCitationPanel } from '../citations/CitationPanel';
import { ExportMenu } from '../library/ExportMenu';
import { AnswerView } from './AnswerView';
import { Composer } from './Composer';
import { ConversationSidebar } from './ConversationSidebar';

const EXAMPLES = [
  'How fast is quick commerce growing in Bengaluru?',
  'What are jewellery retailers doing in Kerala?',
  'Which fashion chains are opening stores in tier-2 cities?',
];

function ShareButton() {
  const conversation = useAppStore((s) => s.activeConversation);
  const hasTurns = useAppStore((s) => s.turns.some((turn) => turn.answer.status === 'done' || turn.answer.status === 'incomplete'));
  const share = useAppStore((s) => s.share);
  const [message, setMessage] = useState<string | null>(null);
  if (!conversation || !hasTurns) return null;
  const saveConversation = async (): Promise<void> => {
    const result = await clarity().invoke('library.saveConversation', { conversationId: conversation.id });
    setMessage(result.ok ? 'Conversation saved to the library.' : result.error.message);
  };
  const onShare = async (): Promise<void> => {
    const result = await share(true);
    if (!result.ok) {
      setMessage(result.message);
      return;
    }
    let copied = false;
    try {
      await navigator.clipboard.writeText(result.url ?? '');
      copied = true;
    } catch {
      copied = false;
    }
    setMessage(copied ? 'Public link copied.' : `Public link: ${result.url}`);
  };
  return (
    <span className="share">
      <button type="button" className="ghost" onClick={() => void saveConversation()} data-testid="save-conversation">
        Save conversation
      </button>
      <ExportMenu source={{ kind: 'conversation', conversationId: conversation.id }} label="Export conversation" />
      {conversation.publicUrl ? (
        <span className="hint" data-testid="public-url">
          Public: {conversation.publicUrl}
        </span>
      ) : null}
      <button type="button" className="secondary" onClick={() => void onShare()} data-testid="share">
        {conversation.publicUrl ? 'Copy public link' : 'Share…'}
      </button>
      {conversation.publicUrl ? (
        <button type="button" className="ghost" onClick={() => void share(false).then(() => setMessage('No longer public.'))} data-testid="unshare">
          Make private
        </button>
      ) : null}
      {message ? (
        <span className="hint" role="status" data-testid="share-status">
          {message}
        </span>
      ) : null}
    </span>
  );
}

export function ChatView({ retryInS }: { retryInS: number }) {
  const turns = useAppStore((s) => s.turns);
  // The list is refreshed after every change in main (titles are set there), so read it.
  const title = useAppStore((s) => s.conversations.find((c) => c.id === s.activeConversation?.id)?.title ?? s.activeConversation?.title ?? 'New conversation');
  const setDraft = useAppStore((s) => s.setDraft);
  const notice = useAppStore((s) => s.chatNotice);
  const recentlyDeleted = useAppStore((s) => s.recentlyDeleted);
  const undoDelete = useAppStore((s) => s.undoDelete);
  const panelOpen = useAppStore((s) => s.selectedCitation !== null);
  const serviceDown = useAppStore((s) => s.serviceStatus?.state === 'unreachable' || s.serviceStatus?.state === 'error');
  const serviceDetail = useAppStore((s) => s.serviceStatus?.detail);
  const lastLength = turns.length > 0 ? turns[turns.length - 1]!.answer.text.length : 0;

  useEffect(() => {
    if (!recentlyDeleted) return;
    const timer = setTimeout(() => useAppStore.setState({ recentlyDeleted: null }), 10_000);
    return () => clearTimeout(timer);
  }, [recentlyDeleted]);

  return (
    <div className={`chat-layout${panelOpen ? ' with-panel' : ''}`}>
      <ConversationSidebar />
      <section className="chat" aria-label="Chat">
        <div className="chat-toolbar">
          <h1 data-testid="conversation-title">{title}</h1>
          <ShareButton />
        </div>
        {notice ? (
          <p className="notice" role="alert">
            {notice}
          </p>
        ) : null}
        {turns.length === 0 ? (
          <div className="messages" data-testid="messages">
            <div className="empty">
              <p>Ask a question about India's retail sector. Answers are grounded in retail signals and cite every claim.</p>
              <ul>
                {EXAMPLES.map((example) => (
                  <li key={example}>
                    <button type="button" className="link" onClick={() => setDraft(example)}>
                      {example}
                    </button>
                  </li>
                ))}
              </ul>
              {serviceDown ? (
                <p className="notice" role="status" data-testid="chat-service-down">
                  The service cannot be reached right now{serviceDetail ? ` (${serviceDetail})` : ''}. You can still read saved conversations and the library; asking works again when it is back. The
                  status bar retries on its own, or check Settings › Service.
                </p>
              ) : null}
              <p className="hint">Keys: Enter asks · Shift+Enter new line · Esc stops an answer · Alt+N new conversation · / focuses the question box</p>
            </div>
          </div>
        ) : (
          // Only the answers on screen are rendered: long conversations open and scroll fast.
          <VirtualList
            className="messages"
            testId="messages"
            items={turns}
            keyOf={(turn) => turn.id}
            estimateHeight={700}
            tailVersion={lastLength}
            render={(turn) => (
              <div className="turn">
                <div className="question" data-testid="question">
                  {turn.question}
                </div>
                <div className="question-actions">
                  <button
                    type="button"
                    className="link edit-question"
                    title="Put this question in the question box to change it and ask again"
                    onClick={() => {
                      setDraft(turn.question);
                      document.querySelector<HTMLTextAreaElement>('[data-testid="composer-input"]')?.focus();
                    }}
                    data-testid="edit-question"
                  >
                    Edit and resend
                  </button>
                </div>
                <AnswerView turn={turn} />
              </div>
            )}
          />
        )}
        {recentlyDeleted ? (
          <div className="toast" role="status" data-testid="undo-toast">
            Deleted “{recentlyDeleted.title}”.
            <button type="button" className="link" onClick={() => void undoDelete()} data-testid="undo-delete">
              Undo
            </button>
          </div>
        ) : null}
        <Composer retryInS={retryInS} />
      </section>
      <ChatCitationPanel />
    </div>
  );
}
