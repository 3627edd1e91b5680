/** Proxy choice and failure naming without a network (the real proxy test is in integration). */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { explainTlsError, hopOfChromiumError, hopOfFetchError } from '../../src/main/network/connection-test';
import { trustedCertificates } from '../../src/main/network/network-fetch';
import { displayProxy, proxyForUrl, proxySettingsFromEnv, validateProxyUrl } from '../../src/main/network/proxy-env';

describe('proxy from the environment', () => {
  const env = { HTTPS_PROXY: 'http://proxy.corp.example:3128', http_proxy: 'http://plain.corp.example:8080', NO_PROXY: '.intranet.example, docs.example:8443' };

  it('uses HTTPS_PROXY for https, HTTP_PROXY for http, in either case', () => {
    const settings = proxySettingsFromEnv(env);
    expect(proxyForUrl('https://signal.example.com/api', settings)).toBe('http://proxy.corp.example:3128');
    expect(proxyForUrl('http://signal.example.com/api', settings)).toBe('http://plain.corp.example:8080');
    expect(proxyForUrl('https://x.example', proxySettingsFromEnv({ HTTP_PROXY: 'http://only-http:1' }))).toBe('http://only-http:1');
  });

  it('honours NO_PROXY by domain suffix and port, and always keeps loopback direct', () => {
    const settings = proxySettingsFromEnv(env);
    expect(proxyForUrl('https://wiki.intranet.example/', settings)).toBeNull();
    expect(proxyForUrl('https://intranet.example/', settings)).toBeNull();
    expect(proxyForUrl('https://docs.example:8443/', settings)).toBeNull();
    expect(proxyForUrl('https://docs.example/', settings)).toBe('http://proxy.corp.example:3128');
    expect(proxyForUrl('http://127.0.0.1:4318/api/v1/ask', settings)).toBeNull();
    expect(proxyForUrl('http://localhost:4318/', settings)).toBeNull();
    expect(proxyForUrl('http://[::1]:4318/', settings)).toBeNull();
    expect(proxyForUrl('https://anything.example', proxySettingsFromEnv({ HTTPS_PROXY: 'http://p:1', NO_PROXY: '*' }))).toBeNull();
    expect(proxyForUrl('https://anything.example', proxySettingsFromEnv({}))).toBeNull();
  });

  it('never shows a proxy password, and rejects proxies it cannot use', () => {
    expect(displayProxy('http://alice:s3cret@proxy.corp.example:3128')).toBe('http://alice:***@proxy.corp.example:3128');
    expect(displayProxy(null)).toBe('none (direct connection)');
    expect(validateProxyUrl('socks5://proxy:1080')).toMatchObject({ ok: false, error: expect.stringContaining('socks5:') });
    expect(validateProxyUrl('proxy.corp.example:3128')).toMatchObject({ ok: true });
  });
});

describe('trusted certificates', () => {
  it('keeps Node\'s default store when nothing is configured', () => {
    expect(trustedCertificates({})).toEqual({ ca: undefined, sources: ["Node's bundled roots"], warnings: [] });
  });

  it('adds NODE_EXTRA_CA_CERTS to the bundled roots, and says when the file is unreadable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'clarity-ca-'));
    try {
      const file = join(dir, 'corp.pem');
      await writeFile(file, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
      const trusted = trustedCertificates({ NODE_EXTRA_CA_CERTS: file });
      expect(trusted.ca!.at(-1)).toContain('MIIB');
      expect(trusted.ca!.length).toBeGreaterThan(100);
      expect(trustedCertificates({ NODE_EXTRA_CA_CERTS: join(dir, 'missing.pem') }).warnings[0]).toMatch(/cannot be read \(ENOENT\)/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('adds the operating system store for NODE_USE_SYSTEM_CA (Debian\'s bundle here)', () => {
    const system = trustedCertificates({ NODE_USE_SYSTEM_CA: '1' });
    expect(system.warnings).toEqual([]);
    expect(system.sources).toEqual(["Node's bundled roots", 'the operating system store']);
    // Every certificate of the system store is in the list, after Node's bundled roots.
    const fromSystem = tls.getCACertificates('system');
    expect(fromSystem.length).toBeGreaterThan(0);
    expect(system.ca!.length).toBe(tls.rootCertificates.length + fromSystem.length);
    expect(system.ca!.slice(tls.rootCertificates.length)).toEqual(fromSystem);
  });
});

describe('naming the failing hop', () => {
  it('from undici errors', () => {
    expect(hopOfFetchError(Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('getaddrinfo ENOTFOUND x'), { code: 'ENOTFOUND' }) }))).toBe('dns');
    expect(hopOfFetchError(Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('self-signed certificate in certificate chain'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' }) }))).toBe('tls');
    expect(hopOfFetchError(Object.assign(new TypeError('fetch failed'), { cause: new Error('Proxy response (407) !== 200 when HTTP Tunneling') }))).toBe('proxy');
    expect(hopOfFetchError(Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }))).toBe('connect');
  });

  it('from Chromium net errors (Electron net.fetch)', () => {
    expect(hopOfChromiumError('net::ERR_NAME_NOT_RESOLVED')).toBe('dns');
    expect(hopOfChromiumError('net::ERR_PROXY_CONNECTION_FAILED')).toBe('proxy');
    expect(hopOfChromiumError('net::ERR_TUNNEL_CONNECTION_FAILED')).toBe('proxy');
    expect(hopOfChromiumError('net::ERR_CERT_AUTHORITY_INVALID')).toBe('tls');
    expect(hopOfChromiumError('net::ERR_CONNECTION_REFUSED')).toBe('connect');
    expect(hopOfChromiumError('net::ERR_EMPTY_RESPONSE')).toBe('http');
  });

  it('explains an untrusted certificate in terms IT can act on', () => {
    expect(explainTlsError('UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'x')).toMatch(/company's root certificate/);
    expect(explainTlsError('CERT_HAS_EXPIRED', 'x')).toMatch(/expired/);
  });
});
