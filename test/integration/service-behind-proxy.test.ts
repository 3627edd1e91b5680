/**
 * A team server behind its reverse proxy (docs/team-server.md): the OpenAPI document names the
 * address analysts reach (--public-url), and anonymous callers are counted by the address the
 * proxy forwards only when the request comes from the proxy (--trust-proxy); otherwise a
 * forwarded address is ignored, so nobody picks a fresh budget by writing the header.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/server';
import { ask, postJson, startTestService } from '../support/local-service';

const services: RunningService[] = [];
afterAll(() => Promise.all(services.map((service) => service.close())));

async function remainingAfterAsk(service: RunningService, forwardedFor: string): Promise<number> {
  const response = await postJson(`${service.url}/api/v1/ask`, ask('How fast is quick commerce growing in Bengaluru?', { stream: false }), { 'x-forwarded-for': forwardedFor });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return Number(response.headers.get('x-rate-limit-remaining'));
}

describe('a service behind a reverse proxy', () => {
  it('names its public address in the OpenAPI document', async () => {
    const service = await startTestService({ publicUrl: 'https://signals.example.com' });
    services.push(service);
    const yaml = await (await fetch(`${service.url}/.well-known/openapi.yaml`)).text();
    expect(yaml).toContain('https://signals.example.com');
    expect(yaml).not.toContain('127.0.0.1');
  });

  it('counts anonymous analysts apart by the forwarded address when the proxy is trusted', async () => {
    const service = await startTestService({ trustProxy: ['127.0.0.1'] });
    services.push(service);
    const first = await remainingAfterAsk(service, '10.0.0.1');
    expect(await remainingAfterAsk(service, '10.0.0.2')).toBe(first);
    expect(await remainingAfterAsk(service, '10.0.0.1')).toBe(first - 1);
  });

  it('ignores a forwarded address from anyone but the trusted proxy', async () => {
    const service = await startTestService();
    services.push(service);
    const first = await remainingAfterAsk(service, '10.0.0.1');
    expect(await remainingAfterAsk(service, '10.0.0.2')).toBe(first - 1);
  });
});
