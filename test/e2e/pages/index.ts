/** One page object per view (test/e2e/pages/…); specs get them as fixtures from fixtures.ts. */
export { AppShell, type ViewName } from './app-shell';
export { Answer, ChatPage } from './chat-page';
export { CitationPanel } from './citation-panel';
export { DiscoverPage, signalTitle } from './discover-page';
export { HealthPage } from './health-page';
export { LibraryPage, LibraryReader } from './library-page';
export { ReportViewer, ResearchPage, ResearchRun, ScheduleCard, ScheduleForm } from './research-page';
export { SettingsPage } from './settings-page';
export { SourcesPage } from './sources-page';
export { StatusBar } from './status-bar';
export { WatchlistPage } from './watchlist-page';
