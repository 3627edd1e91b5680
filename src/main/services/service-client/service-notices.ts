/**
 * Deprecations the services in use have announced (Deprecation / Sunset headers), kept in
 * `<dataDir>/service-notices.json` so the user is told once, plainly, and can read them again
 * under Settings › Service notices. One notice per service, method and path; a later response
 * with new dates updates it without telling the user again.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import type { ServiceNotice } from '../../../shared/service-notices';
import type { DeprecationObservation } from './deprecation-headers';
import { ENDPOINTS } from '../../../shared/endpoints/table';

const StoredNotice = z.object({
  id: z.string(),
  service: z.string(),
  serviceLabel: z.string(),
  method: z.string(),
  path: z.string(),
  what: z.string(),
  deprecatedAt: z.string().nullable(),
  sunsetAt: z.string().nullable(),
  link: z.string().nullable(),
  change: z.string(),
  firstSeenAt: z.string(),
  acknowledged: z.boolean(),
});
/** At most this many are kept (oldest dropped): a service cannot grow the file without bound. */
const MAX_NOTICES = 200;

export interface ObservedDeprecation extends DeprecationObservation {
  method: string;
  /** Relative to the service's base URL, query dropped. */
  path: string;
}

/** Research v1 is the one deprecation the app acts on itself (it switches to v2). */
export const RESEARCH_V1 = { method: ENDPOINTS.researchV1.method, path: ENDPOINTS.researchV1.path } as const;

/**
 * Issue 47: whether the app handles the change itself (nothing for the analyst to do): such a
 * notice is for integrators and lives only under Settings › Developer › Service notices.
 */
function withHandling(notice: ServiceNotice): ServiceNotice {
  return { ...notice, handledByApp: notice.method === RESEARCH_V1.method && notice.path === RESEARCH_V1.path };
}

/** What is going away, in the user's words. */
function describe(method: string, path: string): { what: string; change: string } {
  if (method === RESEARCH_V1.method && path === RESEARCH_V1.path) {
    return {
      what: 'Research reports, version 1 (the request waits until the report is ready)',
      change:
        'The app now starts research on this service with version 2: the run is queued at once and the app checks on it until the report is ready. Your reports, their citations and the research list work as before; nothing for you to do.',
    };
  }
  return {
    what: `${method} ${path}`,
    change: 'The app keeps using it until then; after that date the service may refuse it, and what uses it in the app may stop working on this service.',
  };
}

export class ServiceNoticeStore {
  private notices: ServiceNotice[] = [];
  private writing: Promise<void> = Promise.resolve();

  private constructor(private readonly file: string, private readonly now: () => number) {}

  static async open(dataDir: string, now: () => number = Date.now): Promise<ServiceNoticeStore> {
    const store = new ServiceNoticeStore(join(dataDir, 'service-notices.json'), now);
    try {
      store.notices = z.array(StoredNotice).parse(JSON.parse(await readFile(store.file, 'utf8')));
    } catch {
      // None yet, or an unreadable file: the next announcement is told again, nothing worse.
    }
    return store;
  }

  list(service?: string): ServiceNotice[] {
    return this.notices.filter((notice) => service === undefined || notice.service === service).map(withHandling);
  }

  isDeprecated(service: string, method: string, path: string): boolean {
    return this.notices.some((notice) => notice.service === service && notice.method === method && notice.path === path);
  }

  /** Records an observation; returns the notice when it is new (the user is to be told). */
  record(service: string, serviceLabel: string, observed: ObservedDeprecation): ServiceNotice | null {
    const existing = this.notices.find((notice) => notice.service === service && notice.method === observed.method && notice.path === observed.path);
    if (existing) {
      const changed = existing.deprecatedAt !== observed.deprecatedAt || existing.sunsetAt !== observed.sunsetAt || existing.link !== observed.link;
      if (changed) {
        Object.assign(existing, { deprecatedAt: observed.deprecatedAt, sunsetAt: observed.sunsetAt, link: observed.link, serviceLabel });
        this.persist();
      }
      return null;
    }
    const notice: ServiceNotice = {
      id: `ntc_${randomBytes(6).toString('hex')}`,
      service,
      serviceLabel,
      method: observed.method,
      path: observed.path,
      ...describe(observed.method, observed.path),
      deprecatedAt: observed.deprecatedAt,
      sunsetAt: observed.sunsetAt,
      link: observed.link,
      firstSeenAt: new Date(this.now()).toISOString(),
      acknowledged: false,
    };
    this.notices.push(notice);
    if (this.notices.length > MAX_NOTICES) this.notices.splice(0, this.notices.length - MAX_NOTICES);
    this.persist();
    return withHandling(notice);
  }

  acknowledge(id: string): boolean {
    const notice = this.notices.find((entry) => entry.id === id);
    if (!notice) return false;
    if (!notice.acknowledged) {
      notice.acknowledged = true;
      this.persist();
    }
    return true;
  }

  /** Waits for pending writes (tests, shutdown). */
  flushed(): Promise<void> {
    return this.writing;
  }

  private persist(): void {
    const text = JSON.stringify(this.notices);
    this.writing = this.writing.then(() => writeFileAtomic(this.file, text, { mode: 0o600 })).catch(() => undefined);
  }
}
