/** Webhooks as Settings › Developer shows them (the service's answers, read by main). */

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
