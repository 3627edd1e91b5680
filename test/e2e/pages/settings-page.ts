/**
 * Settings: the service (local or remote), the credential and development token, Network and
 * logs, Developer (API keys, webhooks), Service notices and What's new in the service.
 */
import { expect, type Locator } from '@playwright/test';
import { AppShell } from './app-shell';
import { WEBHOOK_EVENTS, type WebhookEventName } from '../../../src/shared/webhooks';

export class SettingsPage extends AppShell {
  // The credential.
  /** Which backend writes answers, and whether questions leave this machine for it. */
  /** Issue 47: Settings › Sources, the private hosts allowed, each withdrawable. */
  get sourceHosts(): Locator {
    return this.page.getByTestId('source-host');
  }
  /** Issue 47: Settings › Shared pages. */
  get sharedPages(): Locator {
    return this.page.getByTestId('shared-page');
  }
  get developer(): Locator {
    return this.page.getByTestId('settings-developer');
  }
  get composerLine(): Locator {
    return this.page.getByTestId('settings-composer');
  }
  get credentialInput(): Locator {
    return this.page.getByTestId('credential-input');
  }
  get credentialPresentAs(): Locator {
    return this.page.getByTestId('credential-present-as');
  }
  get credentialSave(): Locator {
    return this.page.getByTestId('credential-save');
  }
  get credentialClear(): Locator {
    return this.page.getByTestId('credential-clear');
  }
  get credentialStatus(): Locator {
    return this.page.getByTestId('credential-status');
  }
  get credentialBackend(): Locator {
    return this.page.getByTestId('credential-backend');
  }
  get credentialRejectedNotice(): Locator {
    return this.page.getByTestId('credential-rejected-notice');
  }
  get devTokenEmail(): Locator {
    return this.page.getByTestId('dev-token-email');
  }
  get devTokenGet(): Locator {
    return this.page.getByTestId('dev-token-get');
  }

  /** Goes to Settings and saves a credential, as a user would (optionally presented as `x-api-key`). */
  async saveCredential(secret: string, options: { presentAs?: string; expectSet?: boolean } = {}): Promise<void> {
    await this.goTo('settings');
    await this.credentialInput.fill(secret);
    if (options.presentAs) await this.credentialPresentAs.selectOption(options.presentAs);
    await this.credentialSave.click();
    if (options.expectSet !== false) await expect(this.credentialStatus).toContainText('is set');
  }

  // Answers (issue 28): the embedded service's composer.
  get answers(): Locator {
    return this.page.getByTestId('answer-settings');
  }
  get answersExtractive(): Locator {
    return this.page.getByTestId('answers-extractive');
  }
  get answersModel(): Locator {
    return this.page.getByTestId('answers-model');
  }
  get answersModelUrl(): Locator {
    return this.page.getByTestId('answers-model-url');
  }
  get answersModelName(): Locator {
    return this.page.getByTestId('answers-model-name');
  }
  get answersApiKey(): Locator {
    return this.page.getByTestId('answers-api-key');
  }
  get answersKeyStatus(): Locator {
    return this.page.getByTestId('answers-key-status');
  }
  /** Where the model runs: `data-local="true"` on this machine, else a plain warning. */
  get answersLocation(): Locator {
    return this.page.getByTestId('answers-location');
  }
  get answersMarkUnsupported(): Locator {
    return this.page.getByTestId('answers-mark-unsupported');
  }
  get answersSave(): Locator {
    return this.page.getByTestId('answers-save');
  }
  get answersMessage(): Locator {
    return this.page.getByTestId('answers-message');
  }
  /** Which composer the local service answers with now. */
  /** For a remote service: what its answers name, read-only. */
  get answersRemote(): Locator {
    return this.page.getByTestId('answers-remote');
  }
  get answersCurrent(): Locator {
    return this.page.getByTestId('answers-current');
  }

  /** Chooses a model in Settings › Answers and saves (the local service restarts with it). */
  async useModel(url: string, model: string, options: { apiKey?: string; markUnsupported?: boolean } = {}): Promise<void> {
    await this.goTo('settings');
    await this.answersModel.check();
    await this.answersModelUrl.fill(url);
    await this.answersModelName.fill(model);
    if (options.apiKey) await this.answersApiKey.fill(options.apiKey);
    await this.answersMarkUnsupported.setChecked(options.markUnsupported ?? false);
    await this.answersSave.click();
  }

  // The service.
  get serviceRemote(): Locator {
    return this.page.getByTestId('service-remote');
  }
  get serviceUrl(): Locator {
    return this.page.getByTestId('service-url');
  }
  get serviceSave(): Locator {
    return this.page.getByTestId('service-save');
  }

  /** Goes to Settings and points the app at a remote service. */
  async useRemoteService(url: string): Promise<void> {
    await this.goTo('settings');
    await this.serviceRemote.check();
    await this.serviceUrl.fill(url);
    await this.serviceSave.click();
  }

  // Network and logs.
  get network(): Locator {
    return this.page.getByTestId('network-settings');
  }
  get networkProxy(): Locator {
    return this.page.getByTestId('network-proxy');
  }
  get networkCertificates(): Locator {
    return this.page.getByTestId('network-certificates');
  }
  get networkLogsDir(): Locator {
    return this.page.getByTestId('network-logs-dir');
  }
  get networkTest(): Locator {
    return this.page.getByTestId('network-test');
  }
  /** `data-ok`, one `[data-hop]` line per hop. */
  get networkReport(): Locator {
    return this.page.getByTestId('network-report');
  }
  networkHop(hop: string): Locator {
    return this.networkReport.locator(`[data-hop="${hop}"]`);
  }
  get networkOpenLogs(): Locator {
    return this.page.getByTestId('network-open-logs');
  }
  get networkMessage(): Locator {
    return this.page.getByTestId('network-message');
  }

  // Developer: API keys.
  get developerKeys(): Locator {
    return this.page.getByTestId('developer-keys');
  }
  get keyStore(): Locator {
    return this.developerKeys.getByTestId('key-store');
  }
  get keyIssue(): Locator {
    return this.developerKeys.getByTestId('key-issue');
  }
  get keyNew(): Locator {
    return this.developerKeys.getByTestId('key-new');
  }

  // Developer: webhooks.
  get webhooks(): Locator {
    return this.page.getByTestId('developer-webhooks');
  }
  get webhookUrl(): Locator {
    return this.webhooks.getByTestId('webhook-url');
  }
  webhookEvent(event: WebhookEventName): Locator {
    return this.webhooks.getByTestId(`webhook-event-${event}`);
  }
  get webhookCreate(): Locator {
    return this.webhooks.getByTestId('webhook-create');
  }
  /** The signing secret, shown once after create or rotate. */
  get webhookSecret(): Locator {
    return this.webhooks.getByTestId('webhook-secret');
  }
  get webhookSecretHide(): Locator {
    return this.webhooks.getByTestId('webhook-secret-hide');
  }
  get webhookRows(): Locator {
    return this.webhooks.getByTestId('webhook-row');
  }
  get webhookDeliveries(): Locator {
    return this.webhooks.getByTestId('webhook-delivery');
  }
  get webhookDeliveriesRefresh(): Locator {
    return this.webhooks.getByTestId('webhook-deliveries-refresh');
  }
  get webhookError(): Locator {
    return this.webhooks.getByTestId('webhook-error');
  }

  /** Creates a webhook for `url` and `events`; returns the secret it showed (once). */
  async createWebhook(url: string, events: WebhookEventName[]): Promise<string> {
    await this.goTo('settings');
    await this.webhookUrl.fill(url);
    for (const event of WEBHOOK_EVENTS) await this.webhookEvent(event).setChecked(events.includes(event));
    await this.webhookCreate.click();
    await expect(this.webhookSecret).toHaveText(/^whsec_/);
    return (await this.webhookSecret.innerText()).trim();
  }

  // Service notices and What's new in the service.
  get serviceNotices(): Locator {
    return this.page.getByTestId('service-notices');
  }
  get serviceNoticeRows(): Locator {
    return this.serviceNotices.getByTestId('service-notice-row');
  }
  get whatsNew(): Locator {
    return this.page.getByTestId('whats-new');
  }
  get whatsNewLoad(): Locator {
    return this.whatsNew.getByTestId('whats-new-load');
  }
  get whatsNewEntries(): Locator {
    return this.whatsNew.getByTestId('whats-new-entry');
  }
  get whatsNewDeprecations(): Locator {
    return this.whatsNew.getByTestId('whats-new-deprecation');
  }
}
