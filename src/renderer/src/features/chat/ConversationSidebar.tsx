import { useEffect, useState } from 'react';
import type { ConversationSummary } from '../../../../shared/conversation';
import { clarity } from '../../bridge/clarity';
import { useAppStore } from '../../store/app-store';

/** Search across conversations (titles, questions and answers), asked of main as the user types. */
function useConversationSearch(text: string, version: unknown): ConversationSummary[] | null {
  const [found, setFound] = useState<ConversationSummary[] | null>(null);
  useEffect(() => {
    if (!text.trim()) return setFound(null);
    let live = true;
    const timer = setTimeout(() => {
      void clarity()
        .invoke('conversations.search', { text })
        .then((r) => live && setFound(r.ok ? r.value : []));
    }, 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [text, version]);
  return found;
}

export function ConversationSidebar() {
  const conversations = useAppStore((s) => s.conversations);
  const activeId = useAppStore((s) => s.activeConversation?.id ?? null);
  const open = useAppStore((s) => s.openConversation);
  const create = useAppStore((s) => s.newConversation);
  const rename = useAppStore((s) => s.renameConversation);
  const remove = useAppStore((s) => s.deleteConversation);
  const busy = useAppStore((s) => s.activeStreamId !== null);
  const [editing, setEditing] = useState<{ id: string; title: string } | null>(null);
  const [query, setQuery] = useState('');
  const found = useConversationSearch(query, conversations);
  const shown = found ?? conversations;
  const loadConversations = useAppStore((s) => s.loadConversations);
  const pin = async (id: string, pinned: boolean): Promise<void> => {
    await clarity().invoke('conversations.pin', { id, pinned });
    await loadConversations();
  };

  const commit = async (): Promise<void> => {
    if (!editing) return;
    if (await rename(editing.id, editing.title)) setEditing(null);
  };

  return (
    <aside className="conversations" aria-label="Conversations">
      <button type="button" className="new-conversation" onClick={() => void create()} disabled={busy} data-testid="new-conversation" title="New conversation (Alt+N)">
        + New conversation
      </button>
      <input
        type="search"
        className="conversation-search"
        placeholder="Search conversations"
        aria-label="Search conversations (titles, questions and answers)"
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        onKeyDown={(event) => event.key === 'Escape' && setQuery('')}
        data-testid="conversation-search"
      />
      {conversations.length === 0 ? <p className="hint empty-state" data-testid="conversations-empty">No conversations yet. Ask a question to start one; it is kept here.</p> : null}
      {found?.length === 0 ? (
        <p className="hint empty-state" data-testid="conversation-search-empty">
          No conversation mentions “{query.trim()}” in its title, questions or answers.
        </p>
      ) : null}
      <ul data-testid="conversation-list">
        {shown.map((conversation) => (
          <li key={conversation.id} className={`${conversation.id === activeId ? 'active' : ''}${conversation.pinned ? ' pinned' : ''}`} data-testid="conversation-item" data-id={conversation.id} data-pinned={conversation.pinned ? 'true' : 'false'}>
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
                    {conversation.pinned ? 'Pinned · ' : ''}
                    {conversation.turnCount} question{conversation.turnCount === 1 ? '' : 's'}
                    {conversation.shared ? ' · shared' : ''}
                  </span>
                  {conversation.match && conversation.match !== 'title' ? (
                    <span className="meta match" data-testid="conversation-match">
                      {conversation.match}
                    </span>
                  ) : null}
                </button>
                <span className="row-actions">
                  <button
                    type="button"
                    className="icon"
                    aria-label={`${conversation.pinned ? 'Unpin' : 'Pin'} ${conversation.title}`}
                    aria-pressed={conversation.pinned ? 'true' : 'false'}
                    title={conversation.pinned ? 'Unpin' : 'Pin to the top'}
                    data-testid="pin-conversation"
                    onClick={() => void pin(conversation.id, !conversation.pinned)}
                  >
                    {conversation.pinned ? '★' : '☆'}
                  </button>
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
