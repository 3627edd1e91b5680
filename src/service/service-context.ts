import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { ApiKeyStore, AuthenticatedUser, DevIdentityProvider } from './auth';
import type { ComposerSettings } from './answers/answer-pipeline';
import type { FaultOptions } from './faults';
import type { FeedService } from './feed/feed-service';
import type { SampleMode } from './feed/health-snapshot';
import { ServiceError } from './http-errors';
import type { ResearchRuns } from './research/research-runs';
import type { ResearchSchedules } from './research/research-schedules';
import type { LimitName, RateLimiter, SharedRateLimiter } from './rate-limiter';
import type { SessionStore } from './session-store';
import type { SignalStore } from './signal-store';
import type { ServiceWarmUp } from './server-warm-up';

export interface Identity {
  kind: 'anonymous' | 'user';
  /** Rate-limit bucket: `ip:<addr>` for anonymous callers, `user:<id>` for authenticated ones. */
  key: string;
  user?: AuthenticatedUser;
}

/** What every route needs, passed explicitly so routes stay plain functions. */
export interface ServiceContext {
  store: SignalStore;
  /** The store's warm-up after the service listens (server-warm-up.ts): asks meanwhile search the database. */
  warmUp: ServiceWarmUp;
  sessions: SessionStore;
  limiter: RateLimiter | SharedRateLimiter;
  research: ResearchRuns;
  schedules: ResearchSchedules;
  idp: DevIdentityProvider;
  keys: ApiKeyStore;
  faults: FaultOptions;
  healthMaxAgeS: number;
  /** The live feed: fetched sources, their health, proposals (src/service/feed). */
  feed: FeedService;
  /** How the synthetic sample shows in health: replayed (simulated), a fixed snapshot, or off. */
  sample: SampleMode;
  /** Whether POST /api/v1/dev/token issues development tokens (the app's embedded service). */
  devTokens: boolean;
  /**
   * Whether the developer area's email sign-in (it trusts the typed address) is offered: never on
   * a service that takes the company's identity provider, where it would let anyone be anyone.
   */
  developerSignIn: boolean;
  paceMs: number;
  /** The analyst's time zone when a request names none (`--time-zone`; Asia/Kolkata): dates in answers are its calendar's. */
  timeZone: string;
  /** The answer's composer (extractive, or a model) and the verification setting. */
  composer: ComposerSettings;
  now: () => number;
  /** The caller, as authenticated by the preHandler hook (anonymous by IP otherwise). */
  identify(request: FastifyRequest): Identity;
  /** The authenticated caller, or a 401 that says which credential is needed. */
  requireUser(request: FastifyRequest, surface: string): AuthenticatedUser;
  /** Counts the request against its limit, sets `x-rate-limit-remaining`, throws 429 when spent. */
  enforceLimit(name: LimitName, key: string, reply: FastifyReply): Promise<void>;
  /** Headers already set on a reply, for routes that hijack it to stream. */
  pendingHeaders(reply: FastifyReply): Record<string, string>;
}

/** A 400 that names the field at fault, from a zod error. */
export function invalidRequest(error: z.ZodError): ServiceError {
  const issue = error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : 'body';
  return new ServiceError('invalid_request', `Invalid field \`${field}\`: ${issue?.message ?? 'invalid value'}.`);
}
