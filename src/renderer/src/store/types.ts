/**
 * The app store's state, one interface per slice (docs/decisions/conventions.md §5). Each slice lives in its own file
 * (`*-slice.ts`); index.ts puts them together as `useAppStore`. Types only, so slices can
 * refer to the whole state without importing each other.
 */
import type { ServiceNotice } from '../../../shared/service-notices';
import type { StateCreator } from 'zustand';
import type { View } from '../app/view-registry';
import type { CredentialStatus, ServiceStatus, Settings, StreamMessage, Unsubscribe } from '../../../shared/bridge-contract';
import type { AnswerStatus, Conversation, ConversationSummary, TurnAnswerState } from '../../../shared/conversation';
import type { HealthView } from '../../../shared/health';
import type { LibraryItemView, LibraryLocation, LibraryQuery, LibrarySearchResult } from '../../../shared/library';
import type { ResearchMode, ResearchRunSummary } from '../../../shared/research';
import type { ResearchSchedulesView, ScheduleEvery } from '../../../shared/research-schedules';
import type { FollowTargetArgs, WatchlistView } from '../../../shared/watchlist';

/**
 * A turn as the store keeps it (issue 31, decision 0028): every turn's id, key, question and
 * status; its answer only inside the window (the rows the list renders ± 20, the streaming turn,
 * the turn whose citation is open). `answer: null` is an answer main holds and the renderer does
 * not: a row shows a placeholder and the slice reads it back by range.
 */
export interface TurnEntry {
  /** The stored turn id, or a temporary one until main assigns it. */
  id: string;
  /** The temporary id a turn was asked under, kept once main names it: the turn's key in the list. */
  rowKey?: string;
  question: string;
  /** The answer's status, kept when the answer is not held. */
  status: AnswerStatus;
  answer: TurnAnswerState | null;
  /** Main holds this turn (it came from main, or main named it): only such an answer may be dropped. */
  stored: boolean;
  /** Reading the answer back failed: the row says so and offers a retry (nothing is lost, main keeps it). */
  readError?: string;
  /** UI updates applied while streaming (tests and the benchmark read it). */
  updates: number;
}

/** A turn whose answer is held: what a row renders. */
export type TurnView = TurnEntry & { answer: TurnAnswerState };

/** The open conversation without its turns: they are `turns`, and main keeps them (decision 0028). */
export type ConversationHead = Omit<Conversation, 'turns'>;

export interface ChatSlice {
  conversations: ConversationSummary[];
  activeConversation: ConversationHead | null;
  turns: TurnEntry[];
  draft: string;
  activeStreamId: string | null;
  /** Turn being answered (temporary or stored id). */
  streamingTurnId: string | null;
  recentlyDeleted: { id: string; title: string } | null;
  /** A message for the user about conversations (failed rename, corrupt file…). */
  chatNotice: string | null;
  setDraft(text: string): void;
  loadConversations(): Promise<void>;
  openConversation(id: string): Promise<void>;
  newConversation(): Promise<void>;
  renameConversation(id: string, title: string): Promise<boolean>;
  deleteConversation(id: string): Promise<void>;
  undoDelete(): Promise<void>;
  ask(): Promise<void>;
  retry(turnId: string): Promise<void>;
  cancel(): void;
  share(isPublic: boolean): Promise<{ ok: true; url: string | null } | { ok: false; message: string }>;
  applyStream(turnId: string, messages: StreamMessage[]): void;
  /**
   * A row is rendered (the list mounted it): its answer, and those of the rows ± 20 around the
   * rendered ones, are held or read back. Returns the release, called when the row unmounts.
   */
  showTurn(rowKey: string): () => void;
  /** Reads again the answers whose read failed (the row's Retry). */
  rereadTurns(): void;
  /** The turn's last measured height (px), for its placeholder; not state: writing it renders nothing. */
  turnHeight(rowKey: string): number | undefined;
  noteTurnHeight(rowKey: string, height: number): void;
}

export interface ServiceSlice {
  serviceStatus: ServiceStatus | null;
  credentialStatus: CredentialStatus | null;
  settings: Settings | null;
  /** Browser host only: the connection to the app host dropped (it stopped or restarted). */
  hostLost: { since: number; attempts: number } | null;
  /** Subscribes to service and credential status (and loads them); returns the unsubscribe. */
  connectService(): Unsubscribe;
  setCredentialStatus(status: CredentialStatus): void;
  setServiceStatus(status: ServiceStatus): void;
  setSettings(settings: Settings): void;
}

export interface ResearchSlice {
  runs: ResearchRunSummary[];
  openReportId: string | null;
  /**
   * In-app notices, newest last: "report ready", and what main says about the user's data
   * (a file set aside, a data folder it cannot write), which stay until dismissed.
   */
  notices: Array<{ id: string; text: string; runId?: string; topic?: string; sticky?: boolean; service?: ServiceNotice }>;
  /** Loads main's data notices and subscribes to new ones; returns the unsubscribe. */
  connectDataNotices(): Unsubscribe;
  /**
   * A deprecation the service in use announced, told once: shown until dismissed (which marks
   * it told); those not yet told are shown again after a restart. Returns the unsubscribe.
   */
  connectServiceNotices(): Unsubscribe;
  researchError: string | null;
  /** Subscribes to run updates (a finished run adds a "report ready" notice). */
  connectResearch(): Unsubscribe;
  loadRuns(): Promise<void>;
  startResearch(topic: string, preset?: string, mode?: ResearchMode): Promise<boolean>;
  cancelResearch(id: string): Promise<void>;
  retryResearch(id: string): Promise<void>;
  openReport(id: string | null): void;
  dismissNotice(id: string): void;
  /** The analyst's research schedules on the service (issue 46); null until listed. */
  schedules: ResearchSchedulesView | null;
  /** Why the schedules could not be listed (not signed in, a service without schedules), or null. */
  schedulesProblem: string | null;
  /** Why a schedule could not be made, run or deleted (the plan's cap, the research limit), or null. */
  scheduleError: string | null;
  loadSchedules(): Promise<void>;
  clearScheduleError(): void;
  /** `at` is the service's UTC time of day. */
  createSchedule(request: { topic: string; preset: string; every: ScheduleEvery; at?: string }): Promise<boolean>;
  runSchedule(id: string): Promise<boolean>;
  /** A schedule's new cadence and/or UTC time; the list shows the service's answer. */
  updateSchedule(id: string, change: { every?: ScheduleEvery; at?: string }): Promise<boolean>;
  deleteSchedule(id: string): Promise<boolean>;
}

export interface HealthSlice {
  health: HealthView | null;
  /** Subscribes to health updates pushed by main. */
  connectHealth(): Unsubscribe;
  /** Starts main's health polling while the view is open; returns the stop. */
  watchHealth(): () => void;
}

/** The views are declared once, in the registry (app/view-registry.ts). */
export type { View };

export interface WatchlistSlice {
  watchlist: WatchlistView | null;
  /** New matches since the last poll: an in-app notice (system notifications are Electron's). */
  watchNotice: { count: number; title: string; signalId: string } | null;
  watchError: string | null;
  connectWatchlist(): Unsubscribe;
  follow(target: FollowTargetArgs): Promise<{ ok: true } | { ok: false; message: string }>;
  unfollow(id: string): Promise<void>;
  markRead(ids?: string[]): Promise<void>;
  refreshWatchlist(): Promise<void>;
  dismissWatchNotice(): void;
  /** Starts a conversation seeded with these signals and asks it. */
  askAbout(signals: Array<{ id: string; title: string }>): Promise<void>;
}

export interface UiSlice {
  view: View;
  /**
   * The citation open in the side panel: which answer, which signal, and, when a chip in the
   * answer's text opened it, which of that signal's chips (its sentence's span is highlighted).
   */
  selectedCitation: { turnId: string; citationId: string; occurrence?: number } | null;
  /** Why settings were opened for the user (e.g. a 401), shown at the top of settings. */
  settingsNotice: string | null;
  setView(view: View, notice?: string | null): void;
  selectCitation(selection: { turnId: string; citationId: string; occurrence?: number } | null): void;
}

export interface LibrarySlice {
  /** The user's libraries (personal and team), from main; replaced by every `library.changed` push. */
  libraryLocations: LibraryLocation[];
  /** Counts `library.changed` pushes: the view searches again on it (another writer saved, say). */
  libraryChanges: number;
  libraryResult: LibrarySearchResult | null;
  libraryFacets: { sources: string[]; entities: string[]; tags: string[] };
  /** The saved item open in the reader. */
  libraryItem: LibraryItemView | null;
  libraryError: string | null;
  /** Loads the libraries and follows `library.changed`; returns the unsubscribe. */
  connectLibrary(): Unsubscribe;
  refreshLibraryLocations(): Promise<void>;
  /** Searches (and reloads the facets); the result replaces the last one. */
  searchLibrary(query: LibraryQuery): Promise<void>;
  /** Opens an item in the reader (any library when `location` is not given); false if it is gone. */
  openLibraryItem(id: string, location?: string): Promise<boolean>;
  closeLibraryItem(): void;
  /** A `saved/lib_…` link: shows the library with that item open. */
  openSaved(id: string): Promise<boolean>;
}

export interface ConnectSlice {
  /** Every slice's subscriptions to main, at once (the app calls it on mount). */
  connect(): Unsubscribe;
}

export type AppState = ChatSlice & ServiceSlice & UiSlice & ResearchSlice & HealthSlice & WatchlistSlice & LibrarySlice & ConnectSlice;

export type SliceCreator<Slice> = StateCreator<AppState, [], [], Slice>;
