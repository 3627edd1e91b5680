/**
 * Webhooks: registrations (persisted with their secrets, 0600, in the service's data
 * directory: signing needs the secret itself) and deliveries. Each event is a JSON POST,
 * signed (signature.ts); a delivery is retried with exponential backoff, at most
 * `retryDelaysMs.length + 1` attempts, and every attempt is recorded for the deliveries page.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { isPrivateAddress } from './address-guard';
import { sign, SIGNATURE_HEADER } from './signature';

/** 2, 4, 8, 16 and 32 minutes: six attempts over about an hour (62 min). */
export const DEFAULT_RETRY_DELAYS_MS = [2, 4, 8, 16, 32].map((minutes) => minutes * 60_000);
const ATTEMPT_TIMEOUT_MS = 10_000;
const DELIVERIES_KEPT = 100;
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export type WebhookEvent = 'follow.matched' | 'research.completed';

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
  dataDir: string | null;
}

/** `whsec_` + 32 random base62 characters. */
function newSecret(): string {
  let secret = 'whsec_';
  for (let i = 0; i < 32; i += 1) secret += BASE62[randomInt(BASE62.length)];
  return secret;
}

export class WebhookStore {
  private readonly hooks = new Map<string, WebhookRecord>();
  private readonly deliveries = new Map<string, DeliveryRecord[]>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private writing: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(private readonly options: WebhookOptions) {}

  static async open(options: WebhookOptions): Promise<WebhookStore> {
    const store = new WebhookStore(options);
    const file = store.file();
    if (file) {
      try {
        for (const record of JSON.parse(await readFile(file, 'utf8')) as WebhookRecord[]) store.hooks.set(record.id, record);
      } catch {
        // No webhooks yet.
      }
    }
    return store;
  }

  get allowPrivate(): boolean {
    return this.options.allowPrivate;
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  create(owner: string, url: string, events: WebhookEvent[]): WebhookRecord {
    const secret = newSecret();
    const record: WebhookRecord = {
      id: `whk_${randomBytes(8).toString('hex')}`,
      owner,
      url,
      events: [...new Set(events)],
      secret,
      createdAt: new Date(this.options.now()).toISOString(),
    };
    this.hooks.set(record.id, record);
    this.persist();
    return record;
  }

  list(owner: string): WebhookRecord[] {
    return [...this.hooks.values()].filter((hook) => hook.owner === owner);
  }

  get(owner: string, id: string): WebhookRecord | undefined {
    const hook = this.hooks.get(id);
    return hook && hook.owner === owner ? hook : undefined;
  }

  remove(owner: string, id: string): boolean {
    if (!this.get(owner, id)) return false;
    this.hooks.delete(id);
    this.persist();
    return true;
  }

  /** A new signing secret; deliveries are signed with it from now on (retries of older ones too). */
  rotateSecret(owner: string, id: string): WebhookRecord | undefined {
    const hook = this.get(owner, id);
    if (!hook) return undefined;
    hook.secret = newSecret();
    this.persist();
    return hook;
  }

  /**
   * Sends a logged delivery again, now: a new delivery (own id, own attempts) with the same body,
   * so the event's id in it lets a receiver see it is the same event.
   */
  redeliver(owner: string, hookId: string, deliveryId: string): DeliveryRecord | undefined {
    const hook = this.get(owner, hookId);
    const original = hook ? this.deliveries.get(hook.id)?.find((delivery) => delivery.id === deliveryId) : undefined;
    if (!hook || !original || this.closed) return undefined;
    const createdAt = new Date(this.options.now()).toISOString();
    const delivery: DeliveryRecord = {
      id: `dlv_${randomBytes(8).toString('hex')}`,
      webhookId: hook.id,
      event: original.event,
      createdAt,
      body: original.body,
      state: 'pending',
      attempts: [],
      nextAttemptAt: createdAt,
      redeliveryOf: original.id,
    };
    const list = this.deliveries.get(hook.id)!;
    list.push(delivery);
    if (list.length > DELIVERIES_KEPT) list.splice(0, list.length - DELIVERIES_KEPT);
    void this.attempt(hook, delivery);
    return delivery;
  }

  deliveriesOf(id: string): DeliveryRecord[] {
    return [...(this.deliveries.get(id) ?? [])].reverse();
  }

  /** Sends `event` to each of the owner's webhooks subscribed to it. */
  emit(owner: string, event: WebhookEvent, data: unknown): void {
    if (this.closed) return;
    for (const hook of this.list(owner)) {
      if (!hook.events.includes(event)) continue;
      const id = `dlv_${randomBytes(8).toString('hex')}`;
      const createdAt = new Date(this.options.now()).toISOString();
      const delivery: DeliveryRecord = {
        id,
        webhookId: hook.id,
        event,
        createdAt,
        body: JSON.stringify({ id, type: event, created_at: createdAt, data }),
        state: 'pending',
        attempts: [],
        nextAttemptAt: createdAt,
      };
      const list = this.deliveries.get(hook.id) ?? [];
      list.push(delivery);
      if (list.length > DELIVERIES_KEPT) list.splice(0, list.length - DELIVERIES_KEPT);
      this.deliveries.set(hook.id, list);
      void this.attempt(hook, delivery);
    }
  }

  private async attempt(hook: WebhookRecord, delivery: DeliveryRecord): Promise<void> {
    if (this.closed || !this.hooks.has(hook.id)) return;
    const number = delivery.attempts.length + 1;
    const at = this.options.now();
    const result = await this.post(hook, delivery, Math.floor(at / 1000));
    delivery.attempts.push({ attempt: number, at: new Date(at).toISOString(), ...result });
    if (result.ok) {
      delivery.state = 'delivered';
      delivery.nextAttemptAt = null;
      return;
    }
    const delay = this.options.retryDelaysMs[number - 1];
    if (delay === undefined) {
      delivery.state = 'failed';
      delivery.nextAttemptAt = null;
      return;
    }
    delivery.nextAttemptAt = new Date(this.options.now() + delay).toISOString();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(hook, delivery);
    }, delay);
    timer.unref();
    this.timers.add(timer);
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

  private file(): string | null {
    return this.options.dataDir ? join(this.options.dataDir, 'webhooks.json') : null;
  }

  private persist(): void {
    const file = this.file();
    if (!file) return;
    const records = [...this.hooks.values()];
    this.writing = this.writing
      .then(async () => {
        await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
        await writeFileAtomic(file, JSON.stringify(records), { mode: 0o600 });
      })
      .catch(() => undefined);
  }
}
