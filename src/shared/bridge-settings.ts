// Settings, service status and credential shapes that cross the bridge (split from bridge-contract.ts, which re-exports them).
import { z } from 'zod';
import type { AnswerSetting } from './answer-settings';
import type { DisplayPreferences } from './format';

export const HTTPS_OR_LOOPBACK_URL = z
  .string()
  .trim()
  .max(2_000)
  .refine((value) => {
    try {
      const url = new URL(value);
      if (url.username || url.password) return false;
      if (url.protocol === 'https:') return true;
      // Plain http only to this machine (a service you run yourself).
      return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    } catch {
      return false;
    }
  }, 'Enter an https:// address (plain http is allowed for 127.0.0.1 and localhost only).');

export const ServiceSetting = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('local') }),
  z.object({ mode: z.literal('remote'), baseUrl: HTTPS_OR_LOOPBACK_URL }),
]);
export type ServiceSetting = z.infer<typeof ServiceSetting>;

export const CredentialPresentation = z.enum(['bearer', 'x-api-key']);
export type CredentialPresentation = z.infer<typeof CredentialPresentation>;

/**
 * An origin besides the service's own that report and status URLs may point at (issue #14).
 * SECURITY: the user allow-lists it in Settings; requests there carry the credential, and no
 * other host is ever contacted. Stored as an origin (`https://host[:port]`).
 */
export const TrustedHost = HTTPS_OR_LOOPBACK_URL.transform((value) => new URL(value).origin);
export const TrustedHosts = z.array(TrustedHost).max(20, 'At most 20 trusted hosts.');

/** The colour theme: follow the system (prefers-color-scheme), or always light or dark. */
export const ThemeChoice = z.enum(['system', 'light', 'dark']);
export type ThemeChoice = z.infer<typeof ThemeChoice>;
/** Settings › Display: time zone and how costs are shown (src/shared/format.ts applies them). */
export const DisplaySetting = z.object({
  timeZone: z.enum(['ist', 'system']),
  costCurrency: z.enum(['usd', 'inr']),
  inrPerUsd: z.number().positive('A rate is more than 0.').max(10_000, 'That rate is too large.').nullable(),
});

export interface Settings {
  service: ServiceSetting;
  credentialPresentation: CredentialPresentation;
  /** Origins (besides the service's) allowed for report and status URLs; see TrustedHost. */
  trustedHosts: string[];
  /** Absent until the user picks one: follow the system. */
  theme?: ThemeChoice;
  display: DisplayPreferences;
  /** Settings › Answers (issue 28): absent until chosen, meaning the extractive composer. */
  answers?: AnswerSetting;
  /**
   * Issue 47: hosts on the analyst's private network they allowed the embedded service to fetch
   * sources from (its `--allow-source-host`); listed and withdrawn in Settings › Sources.
   */
  sourceHosts?: string[];
  /** Issue 47: the embedded service's last port, tried first at the next start (stable shared links). */
  localServicePort?: number;
}

/** A host name or address as the service's `--allow-source-host` takes it (lower case, no port). */
export const SourceHost = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(?:[a-z0-9](?:[a-z0-9-]{0,62})?(?:\.[a-z0-9](?:[a-z0-9-]{0,62})?)*|\[[0-9a-f:.]+\])$/, 'Not a host name or address.');

export interface ServiceStatus {
  mode: 'local' | 'remote';
  /** Base URL in use, or null while the local service is starting. */
  baseUrl: string | null;
  state: 'starting' | 'ready' | 'unreachable' | 'error';
  /** The local service serves synthetic sample data; the UI says so. */
  synthetic: boolean;
  detail?: string;
  rateLimitRemaining: number | null;
  /** Epoch ms until which the service asked us to wait (429), if any. */
  retryAt: number | null;
  /** When the service last answered anything (ISO); "ready" only after it has (issue #16). */
  lastSuccessAt?: string | null;
  /** While unreachable: when the app tries again on its own (ISO). */
  nextAttemptAt?: string | null;
  /**
   * While the ready service still loads its search index (it answers meanwhile from its
   * database, ranked differently): how many signals it holds of how many (total null until
   * counted; both null for a remote service, whose `x-index-state: warming` says only that it
   * is). Absent once the index is whole.
   */
  indexing?: IndexProgress;
}

/** A warming service's index: signals held so far, of how many (null: not yet counted, or not told). */
export interface IndexProgress {
  held: number | null;
  total: number | null;
}

export type CredentialKind = 'jwt' | 'api-key' | 'token';

/** What the service said to the stored credential, in words for Settings. */
export interface CredentialCheck {
  verdict: 'accepted' | 'refused' | 'forbidden' | 'none';
  message: string;
}

export interface CredentialStatus {
  set: boolean;
  /** The last four characters only; the secret itself never crosses the bridge. */
  last4: string | null;
  kind: CredentialKind | null;
  presentAs: CredentialPresentation;
  backend: 'keychain' | 'session-only';
  backendDetail: string;
  /**
   * Set when the service refused the credential as invalid or expired (401): asking and the
   * health view carry on anonymously and the status bar and Settings ask the user to renew it.
   */
  rejected?: { at: string; message: string } | null;
  /**
   * Issue 47: no credential is set and the embedded service is in use, so the app calls it as
   * its owner (a token its supervisor obtained at start): research and follows need nothing typed.
   */
  owner?: boolean;
  /**
   * The address of the service this status was judged against (null while no service is ready):
   * until it is the ready service's, whether the analyst is its owner is not known yet, and the
   * status bar says nothing rather than a passing "Anonymous".
   */
  judgedFor?: string | null;
}
