import { useEffect, useRef, type KeyboardEvent } from 'react';
import { useAppStore } from '../../store/app-store';

export function Composer({ retryInS }: { retryInS: number }) {
  const draft = useAppStore((s) => s.draft);
  const setDraft = useAppStore((s) => s.setDraft);
  const ask = useAppStore((s) => s.ask);
  const cancel = useAppStore((s) => s.cancel);
  const streaming = useAppStore((s) => s.activeStreamId !== null);
  // Only a service still starting blocks asking; an unreachable one gets to say so itself.
  const ready = useAppStore((s) => s.serviceStatus !== null && s.serviceStatus.state !== 'starting');
  const input = useRef<HTMLTextAreaElement>(null);

  useEffect(() => input.current?.focus(), []);

  // Keyboard: "/" focuses the question box, Alt+N starts a conversation, Esc stops an answer.
  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent): void => {
      const typing = event.target instanceof HTMLElement && ['INPUT', 'TEXTAREA', 'SELECT'].includes(event.target.tagName);
      if (event.key === '/' && !typing) {
        event.preventDefault();
        input.current?.focus();
      } else if (event.altKey && (event.key === 'n' || event.key === 'N')) {
        event.preventDefault();
        void useAppStore.getState().newConversation().then(() => input.current?.focus());
      } else if (event.key === 'Escape' && !event.defaultPrevented && useAppStore.getState().activeStreamId) {
        // (An open panel or menu takes Esc first: it calls preventDefault.)
        useAppStore.getState().cancel();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void ask();
    }
  };
  const blocked = retryInS > 0;

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void ask();
      }}
    >
      <textarea
        ref={input}
        data-testid="composer-input"
        aria-label="Ask about India's retail sector"
        placeholder="Ask about India's retail sector — e.g. How fast is quick commerce growing in Bengaluru?"
        value={draft}
        rows={2}
        maxLength={8000}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
      />
      {streaming ? (
        <button type="button" className="secondary" onClick={cancel} data-testid="cancel">
          Stop
        </button>
      ) : (
        <button type="submit" disabled={!draft.trim() || blocked || !ready} data-testid="send" title={blocked ? `Rate limited: wait ${retryInS} s` : undefined}>
          {blocked ? `Wait ${retryInS} s` : 'Ask'}
        </button>
      )}
    </form>
  );
}
