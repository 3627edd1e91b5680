/**
 * Views other than Ask load on first visit: start-up parses only the shell and the chat, and
 * each view's code (and what only it uses) arrives in its own chunk (issue 18: bundle size,
 * cold start). Each module is fetched once; later visits are synchronous.
 */
import { lazy } from 'react';

export const DiscoverView = lazy(async () => ({ default: (await import('../features/discover/DiscoverView')).DiscoverView }));
export const WatchlistView = lazy(async () => ({ default: (await import('../features/discover/WatchlistView')).WatchlistView }));
export const HealthView = lazy(async () => ({ default: (await import('../features/health/HealthView')).HealthView }));
export const SourcesView = lazy(async () => ({ default: (await import('../features/sources/SourcesView')).SourcesView }));
export const LibraryView = lazy(async () => ({ default: (await import('../features/library/LibraryView')).LibraryView }));
export const ResearchView = lazy(async () => ({ default: (await import('../features/research/ResearchView')).ResearchView }));
export const SettingsView = lazy(async () => ({ default: (await import('../features/settings/SettingsView')).SettingsView }));
