/**
 * Issue 30 in the app: what a service announces (Deprecation / Sunset headers, its changelog)
 * and webhooks in Settings › Developer. The notices test runs against a variant service that
 * deprecates v1 research (a plain Node server, not our service); the webhooks test against the
 * embedded local service with a receiver on loopback that checks each signature.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { join } from 'node:path';
import { json, startFakeRemoteService, type FakeRemoteService } from '../support/fake-remote-service';
import { expect, test } from './fixtures';
import { WEBHOOK_EVENTS } from '../../src/shared/webhooks';

/** 2026-11-01T00:00:00Z and six months later, as the variant sends them. */
const DEPRECATION = '@1793491200';
const SUNSET = 'Sat, 01 May 2027 00:00:00 GMT';

test.describe('a service that deprecates v1 research', () => {
  let fake: FakeRemoteService;
  test.beforeAll(async () => {
    fake = await startFakeRemoteService({
      id: 'deprecates-v1-research',
      area: 'research',
      description: 'v1 research answers with Deprecation, Sunset and a deprecation Link; a JSON Feed changelog',
      routes: {
        'POST /api/v1/research': (_request, response) =>
          json(response, 200, { status: 'completed', report_url: '/api/v1/research/r1/report', citation_count: 2, cost_usd: 0.42 }, {
            deprecation: DEPRECATION,
            sunset: SUNSET,
            link: '<https://docs.other-service.example/changes>; rel="deprecation"; type="text/html"',
          }),
        'GET /developer/changelog.json': (_request, response) =>
          json(response, 200, {
            version: 'https://jsonfeed.org/version/1.1',
            title: 'Another service\'s changes',
            home_page_url: 'https://docs.other-service.example/changes',
            _retail_signal: { deprecations: [{ method: 'POST', path: '/api/v1/research', deprecated_at: '2026-11-01T00:00:00Z', sunset_at: '2027-05-01T00:00:00Z', replacement: { method: 'POST', path: '/api/v2/research' } }] },
            items: [
              { id: 'v3', title: 'Research v2', date_published: '2026-11-01T00:00:00Z', content_text: '- Research is queued: POST /api/v2/research.\n- v1 research goes away on 1 May 2027.' },
              { id: 'v2', title: 'Follows', date_published: '2026-10-01T00:00:00Z', content_text: '- Follow entities and read a feed.' },
            ],
          }),
      },
    });
  });
  test.afterAll(() => fake.close());

  test('a deprecation the app handles itself stays out of the page: kept under Settings › Developer › Service notices; research switches to v2; the changelog', async ({ apps, page, research, settings }) => {
    const app = await apps.start();
    await research.open(app);
    await settings.useRemoteService(fake.url);
    // Ready once this service has answered (its probe), not the local one.
    await expect.poll(() => fake.requests.length).toBeGreaterThan(0);
    await expect(page.getByTestId('service-state')).toHaveText(/^ready/);
    // Research is for signed-in callers: a token this service takes.
    await settings.saveCredential('other-service-token-1234');
    await expect(research.serviceNotice).toHaveCount(0);

    // A v1 run: its response carries the headers. Issue 47: the app handles this deprecation
    // itself (research moves to v2), so the analyst's page is not interrupted by it.
    const first = await research.start('Quick commerce in Bengaluru');
    await expect(first.root).toHaveAttribute('data-state', 'completed');

    // From now on the app prefers v2 on this service.
    const second = await research.start('Zudio fashion stores');
    await expect(second.root).toHaveAttribute('data-state', 'completed');
    await expect(second.root).toContainText('· queued');
    expect(fake.requests.filter((request) => request.method === 'POST').map((request) => request.path)).toEqual(['/api/v1/research', '/api/v2/research']);
    await expect(research.serviceNotice).toHaveCount(0);

    // It is kept for integrators under Settings › Developer › Service notices, in plain words.
    await settings.goTo('settings');
    await expect(settings.serviceNoticeRows).toHaveCount(1);
    await expect(page.getByTestId('settings-developer')).toContainText('Service notices');
    await expect(settings.serviceNoticeRows.first()).toContainText('POST /api/v1/research');
    await expect(settings.serviceNoticeRows.first()).toContainText('1 May 2027');
    await expect(research.serviceNotice).toHaveCount(0);

    // Told once: after a reload it is not shown again, but Settings still has it.
    await page.reload();
    await settings.goTo('settings');
    await expect(settings.serviceNoticeRows).toHaveCount(1);
    await settings.whatsNewLoad.click();
    await expect(settings.whatsNewEntries).toHaveCount(2);
    await expect(settings.whatsNewEntries.first()).toContainText('Research is queued: POST /api/v2/research.');
    await expect(settings.whatsNewDeprecations.first()).toContainText('POST /api/v1/research until 1 May 2027; use POST /api/v2/research');
    await expect(research.serviceNotice).toHaveCount(0);
  });
});

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** What a receiver does: HMAC-SHA256 over "t.body", compared in constant time, recent t. */
function signedBy(secret: string, delivery: Received): boolean {
  const header = String(delivery.headers['x-clarity-signature'] ?? '');
  const t = /(?:^|,)t=(\d+)/.exec(header)?.[1];
  const v1 = /(?:^|,)v1=([0-9a-f]+)/.exec(header)?.[1];
  if (!t || !v1 || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${delivery.body}`).digest();
  const given = Buffer.from(v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Every file under `dir` except the embedded service's own folder (it signs, so it keeps secrets). */
async function appFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && !join(entry.parentPath, entry.name).startsWith(join(dir, 'local-service'))).map((entry) => join(entry.parentPath, entry.name));
}

test.describe('webhooks in Settings › Developer', () => {
  test.use({ serviceArgs: ['--allow-private-webhooks', '--research-ms=200'] });
  let receiver: Server;
  let receiverUrl = '';
  const received: Received[] = [];
  test.beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address();
    receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/clarity-hooks`;
  });
  test.afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  test('create (secret shown once), a signed delivery arrives, deliveries with response codes, send again, rotate, delete', async ({ app, research, settings }) => {
    await settings.open(app);
    await settings.goTo('settings');
    await settings.devTokenEmail.fill('hooks@example.com');
    await settings.devTokenGet.click();
    await expect(settings.credentialStatus).toContainText('is set');

    // Every event the service announces is offered, research.changed (issue 46) among them.
    for (const event of WEBHOOK_EVENTS) await expect(settings.webhookEvent(event)).toBeVisible();
    await expect(settings.webhooks.getByRole('group', { name: 'Events' })).toContainText('A scheduled research run found changes');
    const secret = await settings.createWebhook(receiverUrl, ['research.completed']);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    await expect(settings.webhookRows).toHaveCount(1);
    await expect(settings.webhookRows.first()).toContainText(receiverUrl);
    await settings.webhookSecretHide.click();
    await expect(settings.webhookSecret).toHaveCount(0);

    // An event: a research report is ready.
    const run = await research.start('Quick commerce in Bengaluru');
    await expect(run.root).toHaveAttribute('data-state', 'completed');
    await expect.poll(() => received.length, { timeout: 15_000 }).toBe(1);
    const first = received[0]!;
    expect(first.headers['x-clarity-event']).toBe('research.completed');
    expect(signedBy(secret, first)).toBe(true);
    expect(signedBy('whsec_wrong', first)).toBe(false);

    // The delivery, as the app shows it.
    await settings.goTo('settings');
    await settings.webhookRows.first().getByTestId('webhook-deliveries').click();
    await expect(settings.webhookDeliveries).toHaveCount(1);
    const row = settings.webhookDeliveries.first();
    await expect(row).toHaveAttribute('data-state', 'delivered');
    await expect(row.getByTestId('webhook-delivery-attempts')).toHaveText('1');
    await expect(row.getByTestId('webhook-delivery-status')).toHaveText('204');

    // Send it again: the receiver gets the same event, signed, as a new delivery.
    await row.getByTestId('webhook-redeliver').click();
    await expect.poll(() => received.length, { timeout: 15_000 }).toBe(2);
    const again = received[1]!;
    expect(again.body).toBe(first.body);
    expect(again.headers['x-clarity-delivery']).not.toBe(first.headers['x-clarity-delivery']);
    expect(signedBy(secret, again)).toBe(true);
    await expect(async () => {
      await settings.webhookDeliveriesRefresh.click();
      await expect(settings.webhookDeliveries).toHaveCount(2, { timeout: 500 });
      await expect(settings.webhookDeliveries.first()).toHaveAttribute('data-state', 'delivered', { timeout: 500 });
    }).toPass({ timeout: 10_000 });

    // Rotate: a new secret, shown once; the old one no longer signs.
    await settings.webhookRows.first().getByTestId('webhook-rotate').click();
    await expect(settings.webhookSecret).not.toHaveText(secret);
    const rotated = (await settings.webhookSecret.innerText()).trim();
    expect(rotated).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    await settings.webhookDeliveries.first().getByTestId('webhook-redeliver').click();
    await expect.poll(() => received.length, { timeout: 15_000 }).toBe(3);
    expect(signedBy(rotated, received[2]!)).toBe(true);
    expect(signedBy(secret, received[2]!)).toBe(false);
    await settings.webhookSecretHide.click();

    // SECURITY: neither secret is in any file the app wrote (settings, logs, conversations, …).
    for (const file of await appFiles(app.dataDir)) {
      const text = await readFile(file, 'utf8').catch(() => '');
      expect(text.includes(secret) || text.includes(rotated), file).toBe(false);
    }

    await settings.webhookRows.first().getByTestId('webhook-delete').click();
    await expect(settings.webhookRows).toHaveCount(0);
  });
});
