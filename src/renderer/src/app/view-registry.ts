/**
 * The one list of the app's views, in navigation order: plain data (no React, no icons), so the
 * store's `View` type, the desktop commands and the end-to-end page objects read it too. Each
 * view's icon and component are in ./views.tsx, a table keyed by these ids (the compiler reports
 * a view without them). Adding a view: CONTRIBUTING.md, "Add a view".
 */
import type { AppCommand, DeepLink } from '../../../shared/desktop';

export interface ViewDeclaration {
  /** The store's `View`; the navigation entry's test id is `nav-<id>`. */
  id: string;
  /** Its name in the navigation (the accessible name when the rail shows icons only). */
  title: string;
  /** The application-menu command that opens it, if any. */
  command: AppCommand | null;
  /** The `clarity-desktop://` link kinds that open it. */
  links: ReadonlyArray<DeepLink['kind']>;
}

export const VIEW_REGISTRY = [
  { id: 'chat', title: 'Ask', command: 'open-ask', links: ['conversation', 'ask'] },
  { id: 'discover', title: 'Discover', command: null, links: [] },
  { id: 'watchlist', title: 'Watchlist', command: null, links: [] },
  { id: 'research', title: 'Research', command: 'open-research', links: ['report'] },
  { id: 'sources', title: 'Sources', command: null, links: [] },
  { id: 'health', title: 'Sources health', command: 'open-health', links: [] },
  { id: 'library', title: 'Library', command: 'open-library', links: ['saved'] },
  { id: 'settings', title: 'Settings', command: 'open-settings', links: [] },
] as const satisfies readonly ViewDeclaration[];

export type View = (typeof VIEW_REGISTRY)[number]['id'];

/** The navigation entry's test id (what the e2e page objects click). */
export function navTestId(view: View): `nav-${View}` {
  return `nav-${view}`;
}

/** The view an application-menu command opens, or null for a command that is not "open a view". */
export function viewForCommand(command: string): View | null {
  return VIEW_REGISTRY.find((view) => view.command === command)?.id ?? null;
}
