/**
 * Corporate network, for real: a forward proxy (the `proxy` package, with CONNECT) and the Retail
 * Signal service behind TLS with a certificate from a private CA made with openssl at test time.
 * The service's name (`signal.corp.test`) resolves only at the proxy, as an intranet name does,
 * so an answer can only have come through the proxy. Everything listens on 127.0.0.1.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProxy } from 'proxy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskEvent } from '../../src/shared/bridge-contract';
import { RetailSignalClient } from '../../src/main/services/service-client/api-client';
import { testConnection } from '../../src/main/network/connection-test';
import { createNetworkFetch, type NetworkFetch } from '../../src/main/network/network-fetch';
import { startTestService } from '../support/local-service';
import type { RunningService } from '../../src/service/server';

const SERVICE_NAME = 'signal.corp.test';
let dir: string;
let service: RunningService;
let tlsFront: Server;
let proxyServer: Server;
let proxyUrl: string;
let serviceUrl: string;
const tunnels: string[] = [];
let frontRequests = 0;
const open: NetworkFetch[] = [];

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function networkFetch(env: Record<string, string>): NetworkFetch {
  const created = createNetworkFetch(env);
  open.push(created);
  return created;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clarity-corp-'));
  // A private root CA and a server certificate for the intranet name, as a company would issue.
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Clarity Test Corporate Root CA');
  writeFileSync(join(dir, 'ext.cnf'), `subjectAltName=DNS:${SERVICE_NAME}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`);
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${SERVICE_NAME}`);
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'ext.cnf');

  service = await startTestService();
  // TLS in front of the real local service (the service itself speaks plain HTTP).
  const backend = new URL(service.url);
  tlsFront = createHttpsServer({ key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) }, (req, res) => {
    frontRequests += 1;
    const upstream = httpRequest({ host: backend.hostname, port: backend.port, path: req.url, method: req.method, headers: { ...req.headers, host: backend.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  const tlsPort = await listen(tlsFront);
  serviceUrl = `https://${SERVICE_NAME}:${tlsPort}`;

  proxyServer = createProxy(createHttpServer());
  // The proxy resolves the intranet name (only it can, as in an office); it records each tunnel.
  proxyServer.prependListener('connect', (req: { url: string }) => {
    tunnels.push(req.url);
    if (req.url.startsWith(`${SERVICE_NAME}:`)) req.url = req.url.replace(SERVICE_NAME, '127.0.0.1');
  });
  proxyUrl = `http://127.0.0.1:${await listen(proxyServer)}`;
}, 120_000);

afterAll(async () => {
  await Promise.all(open.map((created) => created.close()));
  await new Promise((resolve) => proxyServer?.close(resolve));
  await new Promise((resolve) => tlsFront?.close(resolve));
  await service?.app.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('behind a forward proxy with a private CA', () => {
  it('streams a cited answer through the proxy, trusting the company CA from NODE_EXTRA_CA_CERTS', async () => {
    const network = networkFetch({ HTTPS_PROXY: proxyUrl, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') });
    expect(network.proxyFor(serviceUrl)).toBe(proxyUrl);
    expect(network.certificates.sources.join(' ')).toContain('NODE_EXTRA_CA_CERTS');
    const before = { tunnels: tunnels.length, front: frontRequests };

    const client = new RetailSignalClient({ baseUrl: serviceUrl, fetch: network.fetch });
    const events: AskEvent[] = [];
    const result = await client.askStream({ messages: [{ role: 'user', content: 'How are quick commerce dark stores expanding in Bengaluru?' }] } as never, { onEvent: (event) => events.push(event) });
    expect(result).toEqual({ ok: true });
    const text = events.flatMap((event) => (event.type === 'text' ? [event.text] : [])).join('');
    expect(text).toMatch(/\[sig_[0-9a-f]{16}\]/);
    expect(events.some((event) => event.type === 'citation')).toBe(true);

    // The request went through the proxy (a CONNECT to the intranet name) and reached the service.
    expect(tunnels.slice(before.tunnels)).toContain(`${SERVICE_NAME}:${new URL(serviceUrl).port}`);
    expect(frontRequests).toBeGreaterThan(before.front);
  });

  it('"Test connection" walks DNS, proxy, TLS and HTTP, and shows who issued the certificate', async () => {
    const network = networkFetch({ HTTPS_PROXY: proxyUrl, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') });
    const report = await testConnection(serviceUrl, { proxy: network.proxyFor(serviceUrl), ca: network.certificates.ca, fetch: network.fetch });
    expect(report.ok).toBe(true);
    expect(report.hops.map((hop) => hop.hop)).toEqual(['dns', 'proxy', 'tls', 'http']);
    expect(report.hops.find((hop) => hop.hop === 'tls')?.detail).toContain('Clarity Test Corporate Root CA');
    expect(report.proxy).toBe(proxyUrl);
  });

  it('without the company CA the request fails and the TLS hop is named', async () => {
    const network = networkFetch({ HTTPS_PROXY: proxyUrl });
    const client = new RetailSignalClient({ baseUrl: serviceUrl, fetch: network.fetch });
    const health = await client.getHealth(null);
    expect(health.ok).toBe(false);

    const report = await testConnection(serviceUrl, { proxy: network.proxyFor(serviceUrl), ca: network.certificates.ca, fetch: network.fetch });
    expect(report.ok).toBe(false);
    expect(report.failedHop).toBe('tls');
    expect(report.summary).toMatch(/^TLS failed: the certificate is not from an authority this app trusts/);
    // DNS and the proxy tunnel were fine: the report says so.
    expect(report.hops.filter((hop) => hop.ok).map((hop) => hop.hop)).toEqual(['dns', 'proxy']);
  });

  it('names the proxy hop when the proxy is down, and DNS when the intranet name is tried directly', async () => {
    const closed = createHttpServer();
    const deadPort = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const viaDeadProxy = networkFetch({ HTTPS_PROXY: `http://127.0.0.1:${deadPort}`, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') });
    const down = await testConnection(serviceUrl, { proxy: viaDeadProxy.proxyFor(serviceUrl), ca: viaDeadProxy.certificates.ca, fetch: viaDeadProxy.fetch, timeoutMs: 5_000 });
    expect(down.failedHop).toBe('proxy');
    expect(down.summary).toContain(`127.0.0.1:${deadPort}`);

    // NO_PROXY sends the request direct, where nobody can resolve the intranet name.
    const bypassed = networkFetch({ HTTPS_PROXY: proxyUrl, NO_PROXY: '.corp.test', NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') });
    expect(bypassed.proxyFor(serviceUrl)).toBeNull();
    const direct = await testConnection(serviceUrl, { proxy: bypassed.proxyFor(serviceUrl), ca: bypassed.certificates.ca, fetch: bypassed.fetch, timeoutMs: 5_000 });
    expect(direct.failedHop).toBe('dns');
    expect(direct.summary).toContain(SERVICE_NAME);
  });

  it('never sends the embedded service on 127.0.0.1 to the proxy', async () => {
    const network = networkFetch({ HTTPS_PROXY: proxyUrl, HTTP_PROXY: proxyUrl });
    const before = tunnels.length;
    const response = await network.fetch(`${service.url}/api/v1/sources/health`);
    expect(response.status).toBe(200);
    await response.body?.cancel();
    expect(network.proxyFor(service.url)).toBeNull();
    expect(tunnels.length).toBe(before);
  });
});
