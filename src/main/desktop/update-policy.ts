/**
 * Whether and where the app looks for updates, and what the user is shown. Updates are off
 * unless the administrator policy turns them on with a feed URL; a downloaded update installs
 * when the user next quits (never a forced restart), and a notification says so.
 */
import type { AdminPolicy, LoadedPolicy } from './admin-policy';

/** Where the updater is (Electron's electron-updater; main only, never sent to the renderer). */
export interface UpdateState {
  state: 'off' | 'idle' | 'checking' | 'none' | 'downloading' | 'ready' | 'error';
  /** Why updates are off, or what went wrong. */
  detail?: string;
  version?: string;
  /** What changed, as plain text. */
  notes?: string;
}

export type UpdateDecision =
  | { enabled: false; reason: string }
  | { enabled: true; feedUrl: string; channel: 'latest' | 'beta'; checkOnStart: boolean };

export function decideUpdates(loaded: Pick<LoadedPolicy, 'policy' | 'state' | 'path' | 'problem'>, packaged: boolean): UpdateDecision {
  if (!packaged) return { enabled: false, reason: 'Updates apply to installed builds only (this is a development build).' };
  if (loaded.state === 'invalid') return { enabled: false, reason: `Updates are off: the policy file ${loaded.path} is invalid (${loaded.problem}).` };
  const updates: AdminPolicy['updates'] = loaded.policy.updates;
  if (!updates?.enabled) return { enabled: false, reason: loaded.state === 'absent' ? 'Updates are off (no administrator policy turns them on).' : 'Updates are turned off by your administrator.' };
  if (!updates.feedUrl) return { enabled: false, reason: 'Updates are on in the policy, but it names no feedUrl.' };
  return { enabled: true, feedUrl: updates.feedUrl, channel: updates.channel, checkOnStart: updates.checkOnStart };
}

/** electron-updater's releaseNotes (a string of HTML, or a list per version) as plain text. */
export function releaseNotesText(notes: unknown, maxLength = 4_000): string {
  const parts: string[] = [];
  if (typeof notes === 'string') parts.push(notes);
  else if (Array.isArray(notes)) {
    for (const entry of notes) {
      if (entry && typeof entry === 'object') {
        const { version, note } = entry as { version?: unknown; note?: unknown };
        if (typeof note === 'string') parts.push(typeof version === 'string' ? `${version}\n${note}` : note);
      }
    }
  }
  const text = parts
    .join('\n\n')
    .replace(/<\s*(br|\/p|\/li|\/h\d)\s*\/?>/gi, '\n')
    .replace(/<li[^>]*>/gi, '• ')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (!text) return 'No release notes were published for this version.';
  return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
}
