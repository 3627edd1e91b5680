import { useEffect, useLayoutEffect, useRef, type KeyboardEvent } from 'react';
import { takeBootDraft } from '../../app/boot-shell';
import { useAppStore } from '../../store/app-store';
import type { AppState } from '../../store/types';

export const canAsk = (s: AppState): boolean => s.serviceStatus !== null && s.serviceStatus.state !== 'starting';

export function Composer({ retryInS }: { retryInS: number }) {
  const draft = useAppStore((s) => s.draft);
  const setDraft = useAppStore((s) => s.setDraft);
  const ask = useAppStore((s) => s.ask);
  const cancel = useAppStore((s) => s.cancel);
  const streaming = useAppStore((s) => s.activeStreamId !== null);
  // Only a service still starting blocks asking; an unreachable one gets to say so itself.
  const ready = useAppStore(canAsk);
  const input = useRef<HTMLTextAreaElement>(null);
  const bootSelection = useRef<{ text: string; start: number; end: number } | null>(null);

  // In the same commit that removed the start-up shell (index.html): its question box's text, its
  // caret and an Enter pressed in it move here, and the focus with them, before anything is painted
  // or typed again (a passive effect could leave a keystroke to land on the page's body).
  useLayoutEffect(() => {
    input.current?.focus();
    const early = takeBootDraft();
    if (!early) return;
    if (early.text) {
      bootSelection.current = { text: early.text, start: early.selectionStart, end: early.selectionEnd };
      setDraft(early.text);
    }
    if (!early.askWished) return;
    // Asked once the service can answer (as the Ask button waits for it).
    if (canAsk(useAppStore.getState())) {
      void ask();
      return;
    }
    const unsubscribe = useAppStore.subscribe((state) => {
      if (!canAsk(state)) return;
      unsubscribe();
      void state.ask();
    });
    return unsubscribe;
  }, [ask, setDraft]);
  useLayoutEffect(() => {
    // Once the carried text is in the box (the render after the one that took it).
    const selection = bootSelection.current;
    if (!selection || !input.current || draft !== selection.text || input.current.value !== selection.text) return;
    bootSelection.current = null;
    input.current.setSelectionRange(selection.start, selection.end);
  }, [draft]);

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
