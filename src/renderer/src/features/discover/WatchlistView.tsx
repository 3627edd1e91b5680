import { useState } from 'react';
import type { WatchlistItem } from '../../../../shared/watchlist';
import { useDisplay } from '../../app/use-display';
import { useAppStore } from '../../store/app-store';
import { CitationPanel } from '../citations/CitationPanel';
import { SignalActions } from './SignalActions';
import { snapshotOfDiscoverItem } from '../../../../shared/discover-snapshot';
import './surfaces.css';

/** The watchlist: what you follow, new matches (kept offline), unread counts, "ask about these". */
export function WatchlistView() {
  const watchlist = useAppStore((s) => s.watchlist);
  const watchError = useAppStore((s) => s.watchError);
  const unfollow = useAppStore((s) => s.unfollow);
  const markRead = useAppStore((s) => s.markRead);
  const refresh = useAppStore((s) => s.refreshWatchlist);
  const askAbout = useAppStore((s) => s.askAbout);
  const [open, setOpen] = useState<WatchlistItem | null>(null);
  const display = useDisplay();
  const items = watchlist?.items ?? [];
  const unread = items.filter((item) => !item.read);
  const followName = (id: string) => watchlist?.follows.find((f) => f.id === id)?.target.value ?? 'a follow';

  return (
    <section className="sf-discover" aria-label="Watchlist">
      <div className="sf-column">
        <h1>
          Watchlist <span className="sf-badge" data-testid="watchlist-unread">{watchlist?.unread ?? 0} unread</span>
        </h1>
        <div className="sf-follow-row" data-testid="watchlist-follows">
          {(watchlist?.follows ?? []).map((follow) => (
            <span key={follow.id} className="sf-chip">
              {follow.target.type}: {follow.target.value}
              <button type="button" className="icon" aria-label={`Stop following ${follow.target.value}`} onClick={() => void unfollow(follow.id)}>
                ✕
              </button>
            </span>
          ))}
          {watchlist && watchlist.follows.length === 0 ? <span className="hint">Nothing followed yet: follow a retailer, segment, city or source from Discover or a signal.</span> : null}
        </div>
        <p className="hint">
          {watchlist?.tier ? `Tier ${watchlist.tier} (${watchlist.follows.length} of ${watchlist.followLimit ?? '?'} follows). ` : ''}
          {watchlist?.lastPolledAt ? `Checked ${display.time(watchlist.lastPolledAt)}. ` : ''}
          {watchlist?.nextPollAt ? `Next check ${display.time(watchlist.nextPollAt)}.` : ''}
        </p>
        {watchlist?.error || watchError ? (
          <p className="notice" role="alert" data-testid="watchlist-error">
            {watchError ?? watchlist?.error}
          </p>
        ) : null}
        <div className="sf-follow-row">
          <button type="button" onClick={() => void refresh()} data-testid="watchlist-refresh">
            Check now
          </button>
          <button type="button" disabled={unread.length === 0} onClick={() => void askAbout(unread.slice(0, 10).map((i) => ({ id: i.signal.id, title: i.signal.title })))} data-testid="watchlist-ask">
            Ask about these ({Math.min(unread.length, 10)})
          </button>
          <button type="button" disabled={unread.length === 0} onClick={() => void markRead()}>
            Mark all read
          </button>
        </div>
        <ul className="sf-watch-items" data-testid="watchlist-items">
          {items.map((item) => (
            <li key={item.signal.id}>
              <button
                type="button"
                className={`sf-result${item.read ? '' : ' unread'}${open?.signal.id === item.signal.id ? ' active' : ''}`}
                onClick={() => {
                  setOpen(item);
                  if (!item.read) void markRead([item.signal.id]);
                }}
                data-testid="watchlist-item"
              >
                <div className="sf-title">{item.signal.title}</div>
                <div className="hint">
                  {item.signal.source.name} · {display.date(item.signal.published_at)} · matched {item.matched.map(followName).join(', ')}
                </div>
              </button>
            </li>
          ))}
        </ul>
      </div>
      {open ? (
        <div className="sf-side">
          <CitationPanel citations={[snapshotOfDiscoverItem(open.signal, new Date().toISOString())]} text="" selectedId={open.signal.id} onSelect={() => undefined} onClose={() => setOpen(null)} signalActions={false} listTitle="This signal" />
          <SignalActions item={open.signal} />
        </div>
      ) : null}
    </section>
  );
}

/** The in-app notice for new matches (the browser host has no system notifications). */
export function WatchlistNotice() {
  const notice = useAppStore((s) => s.watchNotice);
  const dismiss = useAppStore((s) => s.dismissWatchNotice);
  const setView = useAppStore((s) => s.setView);
  if (!notice) return null;
  return (
    <div className="sf-toast" role="status" aria-live="polite" data-testid="watchlist-notice">
      <span>
        {notice.count} new on your watchlist: {notice.title}
      </span>
      <button
        type="button"
        className="link"
        onClick={() => {
          setView('watchlist');
          dismiss();
        }}
      >
        Open
      </button>
      <button type="button" className="icon" aria-label="Dismiss" onClick={dismiss}>
        ✕
      </button>
    </div>
  );
}
