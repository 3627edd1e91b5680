/**
 * Settings › Shared pages (issue 47): every conversation made public through the service, with
 * its link, each withdrawn with one click (the service then answers 404 for it).
 */
import { useEffect, useState } from 'react';
import { clarity } from '../../bridge/clarity';
import { useAppStore } from '../../store/app-store';

export function SharedPages() {
  const conversations = useAppStore((s) => s.conversations);
  const loadConversations = useAppStore((s) => s.loadConversations);
  const [urls, setUrls] = useState<Record<string, string | null>>({});
  const [message, setMessage] = useState<string | null>(null);
  const shared = conversations.filter((conversation) => conversation.shared);
  const sharedIds = shared.map((conversation) => conversation.id).join(',');

  useEffect(() => {
    // The summaries say which are shared; each one's link is read from its conversation.
    let live = true;
    for (const id of sharedIds ? sharedIds.split(',') : []) {
      void clarity()
        .invoke('conversations.get', { id })
        .then((result) => live && result.ok && setUrls((current) => ({ ...current, [id]: result.value.publicUrl })));
    }
    return () => {
      live = false;
    };
  }, [sharedIds]);

  const withdraw = async (id: string, title: string): Promise<void> => {
    const result = await clarity().invoke('conversations.share', { id, public: false });
    setMessage(result.ok ? `“${title}” is private again: its link no longer opens.` : result.error.message);
    await loadConversations();
  };

  return (
    <fieldset data-testid="shared-pages">
      <legend>Shared pages</legend>
      {shared.length === 0 ? (
        <p className="hint" data-testid="shared-pages-empty">
          Nothing is shared. “Share…” on a conversation says who could open its link and asks first.
        </p>
      ) : (
        <ul>
          {shared.map((conversation) => (
            <li key={conversation.id} data-testid="shared-page">
              <strong>{conversation.title}</strong> {urls[conversation.id] ? <code className="hint">{urls[conversation.id]}</code> : null}{' '}
              <button type="button" className="secondary" onClick={() => void withdraw(conversation.id, conversation.title)} data-testid="shared-page-withdraw">
                Make private
              </button>
            </li>
          ))}
        </ul>
      )}
      {message ? (
        <p className="hint" role="status" data-testid="shared-pages-message">
          {message}
        </p>
      ) : null}
    </fieldset>
  );
}
