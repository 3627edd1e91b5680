import { useEffect, useState } from 'react';
import { ChatView } from '../features/chat/ChatView';
import { SettingsView } from '../features/settings/SettingsView';
import { useAppStore, type View } from '../store/app-store';
import { StatusBar } from './StatusBar';

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

const NAV: Array<{ view: View; label: string }> = [
  { view: 'chat', label: 'Ask' },
  { view: 'settings', label: 'Settings' },
];

export function App() {
  const view = useAppStore((s) => s.view);
  const setView = useAppStore((s) => s.setView);
  const connect = useAppStore((s) => s.connect);
  const loadConversations = useAppStore((s) => s.loadConversations);
  const retryInS = useRetryCountdown();

  useEffect(() => connect(), [connect]);
  useEffect(() => {
    void loadConversations();
  }, [loadConversations]);

  return (
    <div className="app">
      <nav className="sidebar" aria-label="Views">
        <div className="brand">Clarity</div>
        {NAV.map((item) => (
          <button
            key={item.view}
            type="button"
            className={view === item.view ? 'active' : ''}
            aria-current={view === item.view ? 'page' : undefined}
            onClick={() => setView(item.view)}
            data-testid={`nav-${item.view}`}
          >
            {item.label}
          </button>
        ))}
      </nav>
      <main className="content">{view === 'chat' ? <ChatView retryInS={retryInS} /> : <SettingsView />}</main>
      <StatusBar retryInS={retryInS} />
    </div>
  );
}
