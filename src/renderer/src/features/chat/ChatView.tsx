import { useEffect, useRef } from 'react';
import { useAppStore } from '../../store/app-store';
import { AnswerView } from './AnswerView';
import { Composer } from './Composer';

const EXAMPLES = [
  'How fast is quick commerce growing in Bengaluru?',
  'What are jewellery retailers doing in Kerala?',
  'Which fashion chains are opening stores in tier-2 cities?',
];

export function ChatView({ retryInS }: { retryInS: number }) {
  const messages = useAppStore((s) => s.messages);
  const setDraft = useAppStore((s) => s.setDraft);
  const newConversation = useAppStore((s) => s.newConversation);
  const bottom = useRef<HTMLDivElement>(null);
  const lastText = messages.length > 0 ? messages[messages.length - 1]!.text.length : 0;

  useEffect(() => {
    bottom.current?.scrollIntoView?.({ block: 'end' });
  }, [messages.length, lastText]);

  return (
    <section className="chat" aria-label="Chat">
      <div className="chat-toolbar">
        <h1>Ask</h1>
        <button type="button" className="secondary" onClick={newConversation} disabled={messages.length === 0}>
          New conversation
        </button>
      </div>
      <div className="messages" data-testid="messages">
        {messages.length === 0 ? (
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
          </div>
        ) : (
          messages.map((message) =>
            message.role === 'user' ? (
              <div key={message.id} className="question" data-testid="question">
                {message.text}
              </div>
            ) : (
              <AnswerView key={message.id} answer={message} />
            ),
          )
        )}
        <div ref={bottom} />
      </div>
      <Composer retryInS={retryInS} />
    </section>
  );
}
