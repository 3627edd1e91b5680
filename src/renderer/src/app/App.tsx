import { Suspense, useEffect, useState } from 'react';
import { WatchlistNotice } from '../features/discover/WatchlistView';
import { useAppStore } from '../store/app-store';
import { clarity } from '../bridge/clarity';
import { noticeText } from '../../../shared/service-notices';
import { StatusBar } from './StatusBar';
import { useDisplay } from './use-display';
import { useDesktopCommands } from './desktop-commands';
import { useTheme } from './theme';
import { navTestId, VIEW_REGISTRY } from './view-registry';
import { VIEW_PARTS } from './views';

/** Seconds until a 429's Retry-After has passed, ticking once a second. */
function useRetryCountdown(): number {
  const retryAt = useAppStore((s) => s.serviceStatus?.retryAt ?? null);
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!retryAt || retryAt <= Date.now()) return;
    const timer = setInterval(() => setTick((tick) => tick + 1), 250);
    return () => clearInterval(timer);
  }, [retryAt]);
  // Computed at render time, so a new Retry-After shows its true value at once.
  return retryAt ? Math.max(0, Math.ceil((retryAt - Date.now()) / 1000)) : 0;
}

/** Below 1200 px the navigation is a rail of the views' icons; the title stays as the accessible name. */
const NAV = VIEW_REGISTRY.map((declaration) => ({ view: declaration.id, label: declaration.title, Icon: VIEW_PARTS[declaration.id].Icon }));

/**
 * In-app notifications (the browser host has no system ones): "report ready", with a link, and
 * what main says about the user's data, which stays until dismissed.
 */
function Notices() {
  const notices = useAppStore((s) => s.notices);
  const dismiss = useAppStore((s) => s.dismissNotice);
  const openReport = useAppStore((s) => s.openReport);
  const setView = useAppStore((s) => s.setView);
  const display = useDisplay();
  const newest = notices.filter((n) => !n.sticky).at(-1)?.id;
  useEffect(() => {
    if (!newest) return;
    const timer = setTimeout(() => dismiss(newest), 12_000);
    return () => clearTimeout(timer);
  }, [newest, dismiss]);
  if (notices.length === 0) return null;
  return (
    <div className="notices" aria-live="polite">
      {notices.slice(-3).map((notice) => (
        <div key={notice.id} className="notice-card" role={notice.sticky ? 'alert' : 'status'} data-testid={notice.service ? 'service-notice' : notice.sticky ? 'data-notice' : 'app-notice'}>
          <span>{notice.service ? noticeText(notice.service, display.zone) : notice.text}</span>
          {notice.service ? (
            <button
              type="button"
              className="link"
              onClick={() => {
                setView('settings');
                dismiss(notice.id);
              }}
            >
              Service notices
            </button>
          ) : null}
          {notice.runId ? (
            <button
              type="button"
              className="link"
              onClick={() => {
                setView('research');
                openReport(notice.runId!);
                dismiss(notice.id);
              }}
            >
              Open
            </button>
          ) : null}
          <button type="button" className="icon" aria-label="Dismiss" onClick={() => dismiss(notice.id)}>
            ✕
          </button>
        </div>
      ))}
    </div>
  );
}

/** Unread watchlist items, beside the nav entry. */
function UnreadCount() {
  const unread = useAppStore((s) => s.watchlist?.unread ?? 0);
  return unread > 0 ? <span className="sf-badge" data-testid="nav-unread">{unread}</span> : null;
}

/** Scheduled runs whose changes are not seen yet (issue 46), beside the Research nav entry. */
function ChangedCount() {
  const changed = useAppStore((s) => s.runs.filter((run) => run.unseenChanges).length);
  return changed > 0 ? (
    <span className="sf-badge" data-testid="nav-research-changed" aria-label={`${changed} scheduled ${changed === 1 ? 'report' : 'reports'} with changes`}>
      {changed}
    </span>
  ) : null;
}

/** The current view's component, from the registry. */
function Shown({ retryInS }: { retryInS: number }) {
  const { Component } = VIEW_PARTS[useAppStore((s) => s.view)];
  return <Component retryInS={retryInS} />;
}

export function App() {
  const view = useAppStore((s) => s.view);
  const setView = useAppStore((s) => s.setView);
  const connect = useAppStore((s) => s.connect);
  const loadConversations = useAppStore((s) => s.loadConversations);
  const retryInS = useRetryCountdown();

  useEffect(() => connect(), [connect]);
  useDesktopCommands();
  useTheme();
  const loadRuns = useAppStore((s) => s.loadRuns);
  useEffect(() => {
    void loadConversations();
    void loadRuns();
  }, [loadConversations, loadRuns]);
  // Back in the app: main asks the service for runs its research schedules started meanwhile.
  useEffect(() => {
    const check = (): void => {
      if (document.visibilityState === 'visible') void clarity().invoke('research.checkSchedules');
    };
    window.addEventListener('focus', check);
    document.addEventListener('visibilitychange', check);
    return () => {
      window.removeEventListener('focus', check);
      document.removeEventListener('visibilitychange', check);
    };
  }, []);

  return (
    <div className="app">
      <nav className="sidebar" aria-label="Views">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            C
          </span>
          <span className="nav-label">Clarity</span>
        </div>
        {NAV.map((item) => (
          <button
            key={item.view}
            type="button"
            className={view === item.view ? 'active' : ''}
            aria-current={view === item.view ? 'page' : undefined}
            onClick={() => setView(item.view)}
            data-testid={navTestId(item.view)}
            title={item.label}
          >
            <item.Icon className="nav-icon" size={18} aria-hidden="true" />
            <span className="nav-label">{item.label}</span>
            {item.view === 'watchlist' ? <UnreadCount /> : null}
            {item.view === 'research' ? <ChangedCount /> : null}
          </button>
        ))}
      </nav>
      {/* Notices take their own row above the view, so they never cover what the view shows. */}
      <div className="notice-stack">
        <Notices />
        <WatchlistNotice />
      </div>
      <main className="content">
        <Suspense fallback={null}>
        <Shown retryInS={retryInS} />
        </Suspense>
      </main>
      <StatusBar retryInS={retryInS} />
    </div>
  );
}
