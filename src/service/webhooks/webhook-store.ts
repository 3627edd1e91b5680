/**
 * Webhooks: registrations (kept with their secrets in the service's database: signing needs
 * the secret itself) and deliveries. Each event is a JSON POST, signed (signature.ts); a
 * delivery is retried with exponential backoff, at most `retryDelaysMs.length + 1` attempts,
 * and every attempt is recorded for the deliveries page.
 *
 * Deliveries are rows: an event stores one per subscribed webhook, and each process's
 * dispatcher claims due ones with `FOR UPDATE SKIP LOCKED` and a lease, so on a team server a
 * delivery is sent by one process, once per attempt; after a restart pending ones go out.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { Database } from '../store/database';
import { isPrivateAddress } from './address-guard';
import { sign, SIGNATURE_HEADER } from './signature';
import type { WebhookEventName } from '../../shared/webhooks';

// Taken as CommonJS builtins, not ES imports: importing node:http as a module reads every export,
// and its WebSocket getter loads undici (~0.1 s of CPU in every start; decision 0040, round 7).
const http = process.getBuiltinModule('node:http');
const https = process.getBuiltinModule('node:https');

/** 2, 4, 8, 16 and 32 minutes: six attempts over about an hour (62 min). */
export const DEFAULT_RETRY_DELAYS_MS = [2, 4, 8, 16, 32].map((minutes) => minutes * 60_000);
const ATTEMPT_TIMEOUT_MS = 10_000;
const DELIVERIES_KEPT = 100;
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export type WebhookEvent = WebhookEventName;

export interface WebhookRecord {
  id: string;
  owner: string;
  url: string;
  events: WebhookEvent[];
  secret: string;
  createdAt: string;
}

export interface AttemptRecord {
  attempt: number;
  at: string;
  status: number | null;
  ok: boolean;
  error: string | null;
}

export interface DeliveryRecord {
  id: string;
  webhookId: string;
  event: WebhookEvent;
  createdAt: string;
  body: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: AttemptRecord[];
  nextAttemptAt: string | null;
  /** Set on a redelivery: the delivery it repeats. */
  redeliveryOf?: string;
}

export interface WebhookOptions {
  allowPrivate: boolean;
  retryDelaysMs: number[];
  now: () => number;
  db: Database;
}

interface HookRow {
  id: string;
  owner: string;
  url: string;
  events: WebhookEvent[];
  secret: string;
  created_at: string;
}
interface DeliveryRow {
  id: string;
  webhook_id: string;
  event: WebhookEvent;
  created_at: string;
  body: string;
  state: DeliveryRecord['state'];
  attempts: AttemptRecord[];
  next_attempt_ms: number | null;
  redelivery_of: string | null;
}
const hookRecord = (row: HookRow): WebhookRecord => ({ id: row.id, owner: row.owner, url: row.url, events: row.events, secret: row.secret, createdAt: row.created_at });
const deliveryRecord = (row: DeliveryRow): DeliveryRecord => ({
  id: row.id,
  webhookId: row.webhook_id,
  event: row.event,
  createdAt: row.created_at,
  body: row.body,
  state: row.state,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_ms === null ? null : new Date(row.next_attempt_ms).toISOString(),
  ...(row.redelivery_of ? { redeliveryOf: row.redelivery_of } : {}),
});

/** How long a closing service waits for attempts under way to store their results. */
const SETTLE_ATTEMPTS_MS = 2_000;
/** How often each process looks for due deliveries (an event in this process also wakes it). */
const DISPATCH_EVERY_MS = 250;
/** A claimed attempt's lease: longer than one attempt can take. */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 20_000;

/** `whsec_` + 32 random base62 characters. */
function newSecret(): string {
  let secret = 'whsec_';
  for (let i = 0; i < 32; i += 1) secret += BASE62[randomInt(BASE62.length)];
  return secret;
}

export class WebhookStore {
  private readonly timer: NodeJS.Timeout;
  private dispatching = false;
  private again = false;
  /** Set by close(): nothing more is sent by this process (what is stored waits for the next start). */
  private closed = false;
  /** Set by settle(): no more deliveries are stored (the database closes next). */
  private sealed = false;
  /** Deliveries being stored; settle() waits for them. */
  private readonly storing = new Set<Promise<void>>();
  /** Attempts under way (a POST, then its result stored); settle() waits for them a while. */
  private readonly attempting = new Set<Promise<void>>();

  private constructor(private readonly options: WebhookOptions) {
    this.timer = setInterval(() => this.dispatch(), DISPATCH_EVERY_MS);
    this.timer.unref();
  }

  static async open(options: WebhookOptions): Promise<WebhookStore> {
    const store = new WebhookStore(options);
    store.dispatch();
    return store;
  }

  get allowPrivate(): boolean {
    return this.options.allowPrivate;
  }

  /**
   * Stops sending. Events still store their deliveries as pending until settle(), so an event of
   * the service's last moments (an arrival written as it closes) is sent by the next start.
   */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
  }

  /**
   * Stops storing deliveries and resolves once those being stored are, and the attempts under way
   * have stored their results (for at most SETTLE_ATTEMPTS_MS): the database closes after this.
   * An attempt not done by then is sent again by the next start once its lease ends; a receiver
   * may then see it twice (the delivery's id says so).
   */
  async settle(): Promise<void> {
    this.sealed = true;
    await Promise.all(this.storing);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SETTLE_ATTEMPTS_MS);
    });
    try {
      await Promise.race([Promise.all(this.attempting), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private get db(): Database {
    return this.options.db;
  }

  async create(owner: string, url: string, events: WebhookEvent[]): Promise<WebhookRecord> {
    const secret = newSecret();
    const record: WebhookRecord = {
      id: `whk_${randomBytes(8).toString('hex')}`,
      owner,
      url,
      events: [...new Set(events)],
      secret,
      createdAt: new Date(this.options.now()).toISOString(),
    };
    await this.db.query('INSERT INTO webhooks (id, owner, url, events, secret, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [record.id, owner, url, JSON.stringify(record.events), secret, record.createdAt]);
    return record;
  }

  async list(owner: string): Promise<WebhookRecord[]> {
    return (await this.db.query<HookRow>('SELECT * FROM webhooks WHERE owner = $1 ORDER BY created_at, id', [owner])).map(hookRecord);
  }

  async get(owner: string, id: string): Promise<WebhookRecord | undefined> {
    const [row] = await this.db.query<HookRow>('SELECT * FROM webhooks WHERE id = $1 AND owner = $2', [id, owner]);
    return row ? hookRecord(row) : undefined;
  }

  async remove(owner: string, id: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM webhooks WHERE id = $1 AND owner = $2 RETURNING id', [id, owner])).length > 0;
  }

  /** Newest first, the last 100. */
  async deliveriesOf(id: string): Promise<DeliveryRecord[]> {
    return (await this.db.query<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_ms DESC, id DESC LIMIT $2', [id, DELIVERIES_KEPT])).map(deliveryRecord);
  }

  /** A new signing secret; deliveries are signed with it from now on (retries of older ones too). */
  async rotateSecret(owner: string, id: string): Promise<WebhookRecord | undefined> {
    const [row] = await this.db.query<HookRow>('UPDATE webhooks SET secret = $3 WHERE id = $1 AND owner = $2 RETURNING *', [id, owner, newSecret()]);
    return row ? hookRecord(row) : undefined;
  }

  /**
   * Sends a logged delivery again, now: a new delivery (own id, own attempts) with the same body,
   * so the event's id in it lets a receiver see it is the same event. The dispatcher sends it,
   * in whichever process claims it first.
   */
  async redeliver(owner: string, hookId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
    if (this.closed || !(await this.get(owner, hookId))) return undefined;
    const id = `dlv_${randomBytes(8).toString('hex')}`;
    const createdMs = this.options.now();
    const [row] = await this.db.query<DeliveryRow>(
      `INSERT INTO webhook_deliveries (id, webhook_id, event, created_at, created_ms, body, state, next_attempt_ms, redelivery_of)
       SELECT $1, webhook_id, event, $2, $3, body, 'pending', $4, id FROM webhook_deliveries WHERE id = $5 AND webhook_id = $6
       RETURNING *`,
      [id, new Date(createdMs).toISOString(), createdMs, Date.now(), deliveryId, hookId],
    );
    if (!row) return undefined;
    this.dispatch();
    return deliveryRecord(row);
  }

  /** Stores a delivery of `event` for each of the owner's webhooks subscribed to it; the dispatcher sends them. */
  emit(owner: string, event: WebhookEvent, data: unknown): void {
    if (this.sealed) return;
    const storing = this.enqueue(owner, event, data).then(
      () => this.dispatch(),
      () => undefined,
    );
    this.storing.add(storing);
    void storing.finally(() => this.storing.delete(storing));
  }

  private async enqueue(owner: string, event: WebhookEvent, data: unknown): Promise<void> {
    for (const hook of await this.list(owner)) {
      if (!hook.events.includes(event)) continue;
      const id = `dlv_${randomBytes(8).toString('hex')}`;
      const createdMs = this.options.now();
      const createdAt = new Date(createdMs).toISOString();
      const body = JSON.stringify({ id, type: event, created_at: createdAt, data });
      await this.db.transaction(async (tx) => {
        await tx.query("INSERT INTO webhook_deliveries (id, webhook_id, event, created_at, created_ms, body, state, next_attempt_ms) VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7)", [
          id,
          hook.id,
          event,
          createdAt,
          createdMs,
          body,
          Date.now(),
        ]);
        await tx.query(
          'DELETE FROM webhook_deliveries WHERE webhook_id = $1 AND id NOT IN (SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_ms DESC, id DESC LIMIT $2)',
          [hook.id, DELIVERIES_KEPT],
        );
      });
    }
  }

  /** Sends every due delivery this process can claim. */
  private dispatch(): void {
    if (this.closed) return;
    if (this.dispatching) {
      this.again = true;
      return;
    }
    this.dispatching = true;
    void (async () => {
      try {
        do {
          this.again = false;
          for (;;) {
            if (this.closed) return;
            const claimed = await this.claim();
            if (!claimed) break;
            const attempt = this.attempt(claimed.hook, claimed.delivery).catch(() => undefined);
            this.attempting.add(attempt);
            void attempt.finally(() => this.attempting.delete(attempt));
          }
        } while (this.again);
      } catch {
        // The database is unavailable: the next tick tries again.
      } finally {
        this.dispatching = false;
      }
    })();
  }

  private async claim(): Promise<{ hook: WebhookRecord; delivery: DeliveryRecord } | null> {
    const wall = Date.now();
    const [row] = await this.db.query<DeliveryRow & { hook_owner: string; url: string; events: WebhookEvent[]; secret: string; hook_created_at: string }>(
      `WITH due AS (
         SELECT id FROM webhook_deliveries
         WHERE state = 'pending' AND next_attempt_ms <= $1 AND (lease_until_ms IS NULL OR lease_until_ms < $1)
         ORDER BY next_attempt_ms LIMIT 1 FOR UPDATE SKIP LOCKED)
       UPDATE webhook_deliveries d SET lease_until_ms = $2 FROM due, webhooks w
       WHERE d.id = due.id AND w.id = d.webhook_id
       RETURNING d.*, w.owner AS hook_owner, w.url, w.events AS hook_events, w.secret, w.created_at AS hook_created_at`,
      [wall, wall + LEASE_MS],
    );
    if (!row) return null;
    const hook: WebhookRecord = { id: row.webhook_id, owner: row.hook_owner, url: row.url, events: [], secret: row.secret, createdAt: row.hook_created_at };
    return { hook, delivery: deliveryRecord(row) };
  }

  private async attempt(hook: WebhookRecord, delivery: DeliveryRecord): Promise<void> {
    const number = delivery.attempts.length + 1;
    const at = this.options.now();
    const result = await this.post(hook, delivery, Math.floor(at / 1000));
    const attempts = [...delivery.attempts, { attempt: number, at: new Date(at).toISOString(), ...result }];
    const delay = result.ok ? undefined : this.options.retryDelaysMs[number - 1];
    const state: DeliveryRecord['state'] = result.ok ? 'delivered' : delay === undefined ? 'failed' : 'pending';
    await this.db.query('UPDATE webhook_deliveries SET attempts = $2, state = $3, next_attempt_ms = $4, lease_until_ms = NULL WHERE id = $1', [
      delivery.id,
      JSON.stringify(attempts),
      state,
      state === 'pending' ? Date.now() + delay! : null,
    ]);
    if (state === 'pending') setTimeout(() => this.dispatch(), delay! + 5).unref();
  }

  /** One signed POST; redirects are not followed (a redirect is a failed attempt). */
  private post(hook: WebhookRecord, delivery: DeliveryRecord, unixSeconds: number): Promise<Pick<AttemptRecord, 'status' | 'ok' | 'error'>> {
    const url = new URL(hook.url);
    const client = url.protocol === 'https:' ? https : http;
    const allowPrivate = this.options.allowPrivate;
    return new Promise((resolve) => {
      const request = client.request(
        url,
        {
          method: 'POST',
          timeout: ATTEMPT_TIMEOUT_MS,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'RetailSignal-Webhooks/1',
            [SIGNATURE_HEADER]: sign(hook.secret, delivery.body, unixSeconds),
            'x-clarity-event': delivery.event,
            'x-clarity-delivery': delivery.id,
          },
          // SECURITY: the address actually connected to is checked, not only the one seen at registration.
          lookup: (hostname, options, callback) => {
            dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
              const list = addresses as unknown as LookupAddress[];
              if (error) return callback(error, '', 4);
              const refused = !allowPrivate && list.some((entry) => isPrivateAddress(entry.address));
              if (refused) return callback(new Error(`${hostname} resolves to a private address`), '', 4);
              if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
              return callback(null, list[0]!.address, list[0]!.family);
            });
          },
        },
        (response) => {
          response.resume();
          const status = response.statusCode ?? 0;
          resolve({ status, ok: status >= 200 && status < 300, error: status >= 200 && status < 300 ? null : `HTTP ${status}` });
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`)));
      request.on('error', (error) => resolve({ status: null, ok: false, error: error.message }));
      request.end(delivery.body);
    });
  }
}
