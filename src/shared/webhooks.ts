/** Webhooks as Settings › Developer shows them (the service's answers, read by main). */

/**
 * Every event the service announces, with what it means: the one list the service's request
 * schema (and so its OpenAPI document), its developer pages, the bridge and Settings › Developer
 * read, so a new event shows up everywhere at once.
 */
export const WEBHOOK_EVENT_DESCRIPTIONS = {
  'follow.matched': 'A follow matched a new signal',
  'research.completed': 'A research report is ready (or its run failed)',
  'research.changed': 'A scheduled research run found changes since the last run of its topic',
} as const;
export type WebhookEventName = keyof typeof WEBHOOK_EVENT_DESCRIPTIONS;
export const WEBHOOK_EVENTS = Object.keys(WEBHOOK_EVENT_DESCRIPTIONS) as [WebhookEventName, ...WebhookEventName[]];

export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
}

/** Shown once, right after creating a webhook or rotating its secret. */
export interface WebhookWithSecret {
  webhook: WebhookView;
  secret: string;
}

export interface DeliveryAttemptView {
  attempt: number;
  at: string;
  /** The receiver's HTTP status; null when it could not be reached. */
  status: number | null;
  ok: boolean;
  error: string | null;
}

export interface DeliveryView {
  id: string;
  event: string;
  createdAt: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: DeliveryAttemptView[];
  nextAttemptAt: string | null;
}
