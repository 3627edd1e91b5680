import { Ellipsis, PanelLeft } from 'lucide-react';
import { memo, useEffect, useRef, useState } from 'react';
import { useDismiss } from '../../app/use-dismiss';
import { VirtualList } from '../../app/VirtualList';
import { isHeld, useAppStore, type TurnEntry } from '../../store/app-store';
import { hasFinishedTurn, rowKeyOf, rowKeysSelector } from '../../store/turn-selectors';
import { clarity } from '../../bridge/clarity';
import { ChatCitationPanel } from '../citations/CitationPanel';
import { ExportMenu } from '../library/ExportMenu';
import { SaveToLibrary } from '../library/SaveToLibrary';
import { AnswerView } from './LazyAnswerView';
import { canAsk, Composer } from './Composer';
import { ConversationSidebar } from './ConversationSidebar';
import { placeholderHeight, TurnPlaceholder, useShownTurn } from './TurnPlaceholder';

const EXAMPLES = [
  'How fast is quick commerce growing in Bengaluru?',
  'What are jewellery retailers doing in Kerala?',
  'Which fashion chains are opening stores in tier-2 cities?',
];

/** Who can open a shared page, said before anything is shared (issue 47). */
export function shareAudience(mode: 'local' | 'remote', baseUrl: string | null): string {
  if (mode === 'local') return 'Only this computer can open the link: the local service answers on this computer alone. The link stays valid after the app restarts.';
  let host = 'the service';
  try {
    if (baseUrl) host = new URL(baseUrl).host;
  } catch {
    // keep the generic name
  }
  return `Anyone who can reach ${host} and has the link can open it: your team, if it is your team's server; anyone on the internet, if the service is public. You can make it private again at any time.`;
}

function ShareButton() {
  // The id and link alone (issue 50, round 6): the conversation's head is a new object whenever an
  // answer's first events name its session, and this toolbar rendered again for it mid-stream.
  const conversationId = useAppStore((s) => s.activeConversation?.id ?? null);
  const publicUrl = useAppStore((s) => s.activeConversation?.publicUrl ?? null);
  const hasTurns = useAppStore(hasFinishedTurn);
  const share = useAppStore((s) => s.share);
  const [message, setMessage] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const serviceMode = useAppStore((s) => s.serviceStatus?.mode ?? 'local');
  const serviceUrl = useAppStore((s) => s.serviceStatus?.baseUrl ?? null);
  if (!conversationId || !hasTurns) return null;
  const onShare = async (): Promise<void> => {
    setAsking(false);
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
      <SaveToLibrary
        label="Save conversation"
        testId="save-conversation"
        save={(location) => clarity().invoke('library.saveConversation', { conversationId, location })}
        onResult={(result, team) => setMessage(result.ok ? `Conversation saved to ${team ? `“${team}”` : 'the library'}.` : result.error.message)}
      />
      <ExportMenu source={{ kind: 'conversation', conversationId }} label="Export conversation" />
      {publicUrl ? (
        <span className="hint" data-testid="public-url">
          Public: {publicUrl}
        </span>
      ) : null}
      <button type="button" className="secondary" onClick={() => (publicUrl ? void onShare() : setAsking(true))} data-testid="share">
        {publicUrl ? 'Copy link' : 'Share…'}
      </button>
      {asking ? (
        // Issue 47: nothing is made public until the analyst has read who can open the link.
        <span className="share-confirm" role="dialog" aria-label="Share this conversation?" data-testid="share-confirm">
          <span data-testid="share-audience">{shareAudience(serviceMode, serviceUrl)}</span>
          <button type="button" onClick={() => void onShare()} data-testid="share-confirm-yes">
            Share and copy the link
          </button>
          <button type="button" className="ghost" onClick={() => setAsking(false)} data-testid="share-confirm-no">
            Cancel
          </button>
        </span>
      ) : null}
      {publicUrl ? (
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

/**
 * Save / Export / Share: in the toolbar when the chat column is wide, behind a "more" button
 * when it is narrow (a container query in layout.css decides; the same buttons either way).
 */
function ToolbarActions() {
  const show = useAppStore((s) => s.activeConversation !== null && hasFinishedTurn(s));
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const close = useRef(() => setOpen(false)).current;
  const onKeyDown = useDismiss(open, close, menu, toggle);
  if (!show) return null;
  return (
    // role="presentation": it only catches Esc bubbling up from the buttons inside.
    <div className={`toolbar-actions${open ? ' open' : ''}`} role="presentation" onKeyDown={onKeyDown}>
      <button ref={toggle} type="button" className="icon more-toggle" aria-label="Conversation actions" aria-expanded={open} aria-controls="chat-actions" onClick={() => setOpen((value) => !value)} data-testid="toolbar-more">
        <Ellipsis size={18} aria-hidden="true" />
      </button>
      <div ref={menu} className="toolbar-menu" id="chat-actions" data-testid="toolbar-menu">
        <ShareButton />
      </div>
    </div>
  );
}

/** Whether two objects hold the same values (by identity) under the same keys, `except` aside. */
function sameBeside(a: object, b: object, except: ReadonlySet<string>): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  // (A key of `except` may come or go: an answer's first support entry adds `support`.)
  let shared = 0;
  for (const key of Object.keys(y)) {
    if (except.has(key)) continue;
    if (!(key in x) || x[key] !== y[key]) return false;
    shared += 1;
  }
  for (const key of Object.keys(x)) if (!except.has(key)) shared -= 1;
  return shared === 0;
}
const TURN_TEXT = new Set(['answer', 'updates']);
/**
 * What a streaming answer shows nothing of (issue 50, round 9): its text (shown from the store),
 * its sentences' support (read by the citation panel from the store), its promotion (shown once
 * the answer ends), and of its citations, their details (looked up after each citation: neither
 * the sources list nor a chip's preview shows them; the panel reads them from the store).
 */
const ANSWER_UNSHOWN = new Set(['text', 'support', 'promotion', 'citations']);
const CITATION_UNSHOWN = new Set(['detail']);
const sameCitationsShown = (a: readonly object[], b: readonly object[]): boolean => a === b || (a.length === b.length && a.every((citation, i) => citation === b[i] || sameBeside(citation, b[i]!, CITATION_UNSHOWN)));

/**
 * `kept` when `next` is it with only more answer text while it streams (issue 50), or with only
 * what a streaming answer does not show (ANSWER_UNSHOWN: a batch of claim support or a
 * citation's details, most of a stream's batches that are not text alone): the row and its answer
 * are not rendered again for that; the answer shows the text from the store itself
 * (useLiveAnswerMarkdown), and its end renders the whole answer. Text that begins a "Sources
 * disagree" section renders them (the answer's flag reads the text).
 */
export function keepWhileOnlyTextGrew<T extends TurnEntry | undefined>(kept: T, next: T): T {
  if (!kept || !next || kept === next || !kept.answer || !next.answer || kept.answer.status !== 'streaming' || next.answer.status !== 'streaming') return next;
  if (!sameBeside(kept, next, TURN_TEXT) || !sameBeside(kept.answer, next.answer, ANSWER_UNSHOWN) || !sameCitationsShown(kept.answer.citations, next.answer.citations)) return next;
  const before = kept.answer.text;
  const after = next.answer.text;
  // (One equality of the start, not startsWith's character-by-character walk: issue 50, round 7.)
  if (after.slice(0, before.length) !== before || after.includes('Sources disagree', Math.max(0, before.length - 20))) return next;
  return kept;
}

/**
 * One turn's row. It reads its own turn from the store, so a streamed batch (a new `turns` array
 * once per frame, issue 31) renders this row alone: not the list, its virtualiser and the other
 * rows, as it did when the list read `turns` and handed each row its turn. A batch of text alone
 * renders nothing (keepWhileOnlyTextGrew).
 */
const TurnRow = memo(function TurnRow({ rowKey, index }: { rowKey: string; index: number }) {
  const kept = useRef<TurnEntry | undefined>(undefined);
  // The row's own index first (a conversation of 1,000 turns is not searched on every batch);
  // a search only if the list changed under it.
  const turn = useAppStore((s) => {
    const at = s.turns[index];
    kept.current = keepWhileOnlyTextGrew(kept.current, at && rowKeyOf(at) === rowKey ? at : s.turns.find((t) => rowKeyOf(t) === rowKey));
    return kept.current;
  });
  const setDraft = useAppStore((s) => s.setDraft);
  // Rendered: the slice holds this turn's answer and those around it (decision 0028).
  const element = useShownTurn(rowKey);
  if (!turn) return null;
  const held = isHeld(turn);
  return (
    <div ref={element} className="turn" style={held ? undefined : { minHeight: placeholderHeight(rowKey) }}>
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
      {held ? <AnswerView turn={turn} /> : <TurnPlaceholder turn={turn} />}
    </div>
  );
});

const renderRow = (rowKey: string, index: number) => <TurnRow rowKey={rowKey} index={index} />;
const keyOfRow = (rowKey: string): string => rowKey;

/**
 * The conversation's turns. The list reads the turns' keys only (a new array when a turn is
 * added, removed or re-keyed): a streamed batch renders the growing answer's row alone, not the
 * chat's toolbar, conversation list and composer, nor this list and its virtualiser.
 */
function ConversationTurns() {
  // One selector for this list: a write that changes no turn's key maps no turn (issue 50, round 9).
  const [selectRowKeys] = useState(rowKeysSelector);
  const rowKeys = useAppStore(selectRowKeys);
  const setDraft = useAppStore((s) => s.setDraft);
  const serviceDown = useAppStore((s) => s.serviceStatus?.state === 'unreachable' || s.serviceStatus?.state === 'error');
  const serviceDetail = useAppStore((s) => s.serviceStatus?.detail);
  const conversationId = useAppStore((s) => s.activeConversation?.id ?? null);
  return rowKeys.length === 0 ? (
    <div className="messages" data-testid="messages">
      <div className="empty">
        <p>Ask a question about India's retail sector. Answers are grounded in retail signals and cite every claim.</p>
        <ul>
          {EXAMPLES.map((example) => (
            <li key={example}>
              <button
                type="button"
                className="link"
                data-testid="example-question"
                onClick={() => {
                  // Issue 47: an example asks at once (once the service can answer, as the Ask button).
                  setDraft(example);
                  if (canAsk(useAppStore.getState())) void useAppStore.getState().ask();
                }}
              >
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
    <VirtualList className="messages turns" testId="messages" items={rowKeys} keyOf={keyOfRow} estimateHeight={700} followKey={`${conversationId}:${rowKeys.length}`} render={renderRow} />
  );
}

export function ChatView({ retryInS }: { retryInS: number }) {
  // The list is refreshed after every change in main (titles are set there), so read it.
  const title = useAppStore((s) => s.conversations.find((c) => c.id === s.activeConversation?.id)?.title ?? s.activeConversation?.title ?? 'New conversation');
  const notice = useAppStore((s) => s.chatNotice);
  const recentlyDeleted = useAppStore((s) => s.recentlyDeleted);
  const undoDelete = useAppStore((s) => s.undoDelete);
  const panelOpen = useAppStore((s) => s.selectedCitation !== null);
  // Below 1200 px the conversation list is a drawer (layout.css); this opens it.
  const [drawerOpen, setDrawerOpen] = useState(false);
  const drawerToggle = useRef<HTMLButtonElement>(null);
  const drawer = useRef<HTMLDivElement>(null);
  const closeDrawer = useRef(() => setDrawerOpen(false)).current;
  const onDrawerKey = useDismiss(drawerOpen, closeDrawer, drawer, drawerToggle);

  // Esc clears a notice about conversations (a failed rename…): it is about what was just done.
  useEffect(() => {
    if (!notice) return;
    const onKey = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') useAppStore.setState({ chatNotice: null });
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [notice]);

  useEffect(() => {
    if (!recentlyDeleted) return;
    const timer = setTimeout(() => useAppStore.setState({ recentlyDeleted: null }), 10_000);
    return () => clearTimeout(timer);
  }, [recentlyDeleted]);

  return (
    <div className={`chat-layout${panelOpen ? ' with-panel' : ''}${drawerOpen ? ' drawer-open' : ''}`}>
      <div
        ref={drawer}
        className="conversation-drawer"
        id="conversation-drawer"
        role="presentation"
        onKeyDown={onDrawerKey}
        // Opening or starting a conversation from the drawer closes it.
        onClick={(event) => (event.target as HTMLElement).closest('.conversation-title, .new-conversation') && setDrawerOpen(false)}
      >
        <ConversationSidebar />
      </div>
      <section className="chat" aria-label="Chat">
        <div className="chat-toolbar">
          <button
            ref={drawerToggle}
            type="button"
            className="icon drawer-toggle"
            aria-label="Conversations"
            aria-expanded={drawerOpen}
            aria-controls="conversation-drawer"
            onClick={() => setDrawerOpen((value) => !value)}
            data-testid="conversations-toggle"
          >
            <PanelLeft size={18} aria-hidden="true" />
          </button>
          <h1 data-testid="conversation-title">{title}</h1>
          <ToolbarActions />
        </div>
        {notice ? (
          <p className="notice" role="alert" data-testid="chat-notice">
            {notice}
            <button type="button" className="icon" aria-label="Dismiss" onClick={() => useAppStore.setState({ chatNotice: null })}>
              ✕
            </button>
          </p>
        ) : null}
        <div className="chat-body">
        <ConversationTurns />
        <ChatCitationPanel />
        </div>
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
    </div>
  );
}
