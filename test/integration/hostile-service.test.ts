/**
 * The API client against the lying service (test/support/hostile-service.ts), over real HTTP:
 * a redirect to another origin is refused, with a clear error, and no request — so no
 * credential — ever reaches the other host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetailSignalClient, type Credential } from '../../src/main/services/service-client/api-client';
import { startHostileService, type HostileService } from '../support/hostile-service';

const API_KEY: Credential = { secret: 'ck_hostiletestkey0000000000000000', presentAs: 'x-api-key' };
const BEARER: Credential = { secret: 'bearer-secret-for-hostile-test', presentAs: 'bearer' };

describe('redirects off the configured origin', () => {
  let plain: HostileService;
  let redirecting: HostileService;
  beforeAll(async () => {
    plain = await startHostileService();
    redirecting = await startHostileService({ redirectGets: true });
  });
  afterAll(async () => {
    await plain.close();
    await redirecting.close();
  });

  it.each([API_KEY, BEARER])('an ask answered with 307 to another host is refused; nothing reaches that host (%s.presentAs)', async (credential) => {
    const client = new RetailSignalClient({ baseUrl: plain.url, credential: async () => credential });
    const texts: string[] = [];
    const result = await client.askStream({ messages: [{ role: 'user', content: 'please redirect me' }] }, { onEvent: (e) => void (e.type === 'text' && texts.push(e.text)) });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.message).toMatch(/redirect \(307\) to http:\/\/127\.0\.0\.1:\d+.*not sent there/);
      expect(result.error.message).not.toContain(credential.secret);
    }
    expect(texts.join('')).not.toContain('ELSEWHERE');
    expect(plain.elsewhere.requests).toEqual([]);
  });

  it('the JSON ask, health, a report and a research poll are refused too, and not retried elsewhere', async () => {
    const client = new RetailSignalClient({ baseUrl: redirecting.url, credential: async () => API_KEY });
    const health = await client.getHealth(null);
    expect(health.ok).toBe(false);
    if (!health.ok) expect(health.error.message).toContain('does not follow redirects');
    const reportResult = await client.getReport(`${redirecting.url}/api/v1/reports/rep_hostile`);
    expect(reportResult.ok).toBe(false);
    const poll = await client.pollResearch('/api/v1/research/anything');
    expect(poll.ok).toBe(false);
    const signal = await client.getSignal('sig_00000000000000a1');
    expect(signal.ok).toBe(false);
    const json = await new RetailSignalClient({ baseUrl: plain.url, credential: async () => API_KEY }).askJson({ messages: [{ role: 'user', content: 'redirect' }] });
    expect(json.ok).toBe(false);
    expect(redirecting.elsewhere.requests).toEqual([]);
    expect(plain.elsewhere.requests).toEqual([]);
    // A redirect is not a transient failure: each GET was asked once.
    expect(redirecting.requests.filter((r) => r.path.startsWith('/api/v1/sources/health'))).toHaveLength(1);
  });
});
