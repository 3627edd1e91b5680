/** Webhook signatures and the private-address guard (pure functions; the delivery path is in integration). */
import { describe, expect, it } from 'vitest';
import { isPrivateAddress, refuseReason } from '../../src/service/webhooks/address-guard';
import { sign, verifySignature } from '../../src/service/webhooks/signature';

describe('webhook signature', () => {
  const body = '{"id":"dlv_1","type":"follow.matched"}';
  it('verifies a fresh signature and rejects a stale, altered or foreign one', () => {
    const header = sign('whsec_a', body, 1_700_000_000);
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(verifySignature('whsec_a', body, header, 1_700_000_100)).toBe(true);
    expect(verifySignature('whsec_a', body, header, 1_700_000_400)).toBe(false);
    expect(verifySignature('whsec_a', `${body} `, header, 1_700_000_100)).toBe(false);
    expect(verifySignature('whsec_b', body, header, 1_700_000_100)).toBe(false);
    expect(verifySignature('whsec_a', body, undefined, 1_700_000_100)).toBe(false);
  });
});

describe('private address guard', () => {
  it('knows private, loopback, link-local and mapped addresses from public ones', () => {
    for (const address of ['127.0.0.1', '10.0.0.8', '172.20.1.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1']) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) expect(isPrivateAddress(address), address).toBe(false);
  });

  it('knows IPv6 forms that carry an IPv4 address (IPv4-compatible, 6to4, Teredo)', () => {
    // [::127.0.0.1] normalises to ::7f00:1.
    for (const address of ['::7f00:1', '::a00:8', '2002:7f00:1::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2']) expect(isPrivateAddress(address), address).toBe(true);
  });

  it('refuses non-http schemes, credentials in the URL and private hosts unless allowed', async () => {
    expect(await refuseReason(new URL('ftp://example.com/'), false)).toMatch(/http/);
    expect(await refuseReason(new URL('https://user:pw@8.8.8.8/'), false)).toMatch(/credentials/);
    expect(await refuseReason(new URL('http://127.0.0.1:9/'), false)).toMatch(/--allow-private-webhooks/);
    expect(await refuseReason(new URL('http://127.0.0.1:9/'), true)).toBeNull();
    expect(await refuseReason(new URL('https://8.8.8.8/hook'), false)).toBeNull();
  });
});
