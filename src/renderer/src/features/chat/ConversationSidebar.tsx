import { useState } from 'react';
import { useAppStore } from '../../store/app-store';

export function ConversationSidebar() {
  const conversations = useAppStore((s) => s.conversations);
  const activeId = useAppStore((s) => s.activeConversation?.id ?? null);
  const open = useAppStore((s) => s.openConversation);
  const create = useAppStore((s) => s.newConversation);
  const rename = useAppStore((s) => s.renameConversation);
  const remove = useAppStore((s) => s.deleteConversation);
  const busy = useAppStore((s) => s.activeStreamId !== null);
  const [editing, setEditing] = useState<{ id: string; title: string } | null>(null);

  const commit = async (): Promise<void> => {
    if (!editing) return;
    if (await rename(editing.id, editing.title)) setEditing(null);
  };

  return (
    <aside className="conversations" aria-label="Conversations">
      <button type="button" className="new-conversation" onClick={() => void create()} disabled={busy} data-testid="new-conversation" title="New conversation (Alt+N)">
        + New conversation
      </button>
      <ul data-testid="conversation-list">
        {conversations.map((conversation) => (
          <li key={conversation.id} className={conversation.id === activeId ? 'active' : ''} data-testid="conversation-item" data-id={conversation.id}>
            {editing?.id === conversation.id ? (
              <form
                onSubmit={(event) => {
                  event.preventDefault();
                  void commit();
                }}
              >
                <input
                  // The user just asked to rename: the field they asked for gets the focus.
                  // eslint-disable-next-line jsx-a11y/no-autofocus
                  autoFocus
                  aria-label="Conversation title"
                  data-testid="rename-input"
                  value={editing.title}
                  maxLength={200}
                  onChange={(event) => setEditing({ id: conversation.id, title: event.target.value })}
                  onKeyDown={(event) => event.key === 'Escape' && setEditing(null)}
                  onBlur={() => void commit()}
                />
              </form>
            ) : (
              <>
                <button type="button" className="conversation-title" onClick={() => void open(conversation.id)} disabled={busy && conversation.id !== activeId} title={conversation.title}>
                  <span className="title-text">{conversation.title}</span>
                  <span className="meta">
                    {conversation.turnCount} question{conversation.turnCount === 1 ? '' : 's'}
                    {conversation.shared ? ' · shared' : ''}
                  </span>
                </button>
                <span className="row-actions">
                  <button type="button" className="icon" aria-label={`Rename ${conversation.title}`} data-testid="rename-conversation" onClick={() => setEditing({ id: conversation.id, title: conversation.title })}>
                    ✎
                  </button>
                  <button type="button" className="icon" aria-label={`Delete ${conversation.title}`} data-testid="delete-conversation" onClick={() => void remove(conversation.id)} disabled={busy && conversation.id === activeId}>
                    ✕
                  </button>
                </span>
              </>
            )}
          </li>
        ))}
      </ul>
    </aside>
  );
}
