/**
 * Each view's icon and component, keyed by the registry's ids (./view-registry.ts): a view
 * declared there without an entry here does not compile. Ask is in the start-up bundle; the
 * others load on first visit (./lazy-views.tsx).
 */
import { Activity, Compass, Eye, FlaskConical, Library, MessageSquare, Rss, Settings, type LucideIcon } from 'lucide-react';
import type { ComponentType } from 'react';
import { ChatView } from '../features/chat/ChatView';
import { DiscoverView, HealthView, LibraryView, ResearchView, SettingsView, SourcesView, WatchlistView } from './lazy-views';
import type { View } from './view-registry';

/** What App gives every view: seconds until a 429's Retry-After has passed. */
export interface ViewProps {
  retryInS: number;
}

export const VIEW_PARTS: Record<View, { Icon: LucideIcon; Component: ComponentType<ViewProps> }> = {
  chat: { Icon: MessageSquare, Component: ChatView },
  discover: { Icon: Compass, Component: DiscoverView },
  watchlist: { Icon: Eye, Component: WatchlistView },
  research: { Icon: FlaskConical, Component: ResearchView },
  sources: { Icon: Rss, Component: SourcesView },
  health: { Icon: Activity, Component: HealthView },
  library: { Icon: Library, Component: LibraryView },
  settings: { Icon: Settings, Component: SettingsView },
};
