/**
 * The fetch the browser host and the service CLI use for every service request: it honours
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY (undici's EnvHttpProxyAgent) and the certificates a company
 * adds. (In Electron, requests go through Chromium's net.fetch instead: system proxy, PAC, the OS
 * certificate store.)
 *
 * Certificates (Node 24, as in Electron 45's main process):
 * - NODE_EXTRA_CA_CERTS=<pem file> is read by Node at start-up; we read it here too, because an
 *   explicit CA list replaces Node's default one.
 * - NODE_USE_SYSTEM_CA=1 adds the operating system's store (Windows, macOS, and the Linux bundle
 *   where `update-ca-certificates` puts a company's root), read with tls.getCACertificates.
 */
import { readFileSync } from 'node:fs';
import * as tls from 'node:tls';
import { EnvHttpProxyAgent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { proxyForUrl, proxySettingsFromEnv, validateProxyUrl, type ProxyEnv, type ProxySettings } from './proxy-env';

export interface TrustedCertificates {
  /** Explicit CA list, or undefined to keep Node's default store. */
  ca: string[] | undefined;
  /** Where trust comes from, for Settings and logs. */
  sources: string[];
  /** Settings that could not be honoured, said plainly. */
  warnings: string[];
}

export function trustedCertificates(env: ProxyEnv): TrustedCertificates {
  const extraFile = env.NODE_EXTRA_CA_CERTS?.trim();
  const useSystem = env.NODE_USE_SYSTEM_CA === '1';
  const warnings: string[] = [];
  if (!extraFile && !useSystem) return { ca: undefined, sources: ["Node's bundled roots"], warnings };
  const ca = [...tls.rootCertificates];
  const sources = ["Node's bundled roots"];
  if (useSystem) {
    const system = tls.getCACertificates('system');
    if (system.length > 0) {
      ca.push(...system);
      sources.push('the operating system store');
    } else warnings.push('NODE_USE_SYSTEM_CA=1, but the operating system store has no certificates Node can read.');
  }
  if (extraFile) {
    try {
      ca.push(readFileSync(extraFile, 'utf8'));
      sources.push(`NODE_EXTRA_CA_CERTS (${extraFile})`);
    } catch (error) {
      warnings.push(`NODE_EXTRA_CA_CERTS points to ${extraFile}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
    }
  }
  return { ca, sources, warnings };
}

export interface NetworkFetch {
  fetch: typeof fetch;
  proxy: ProxySettings;
  certificates: TrustedCertificates;
  /** The proxy a request to this URL uses, or null (direct). */
  proxyFor(url: string): string | null;
  close(): Promise<void>;
}

export function createNetworkFetch(env: ProxyEnv = process.env): NetworkFetch {
  const proxy = proxySettingsFromEnv(env);
  const certificates = trustedCertificates(env);
  for (const value of [proxy.httpProxy, proxy.httpsProxy]) {
    if (value && !validateProxyUrl(value).ok) certificates.warnings.push((validateProxyUrl(value) as { error: string }).error);
  }
  const tlsOptions = certificates.ca ? { ca: certificates.ca } : {};
  const dispatcher: Dispatcher = new EnvHttpProxyAgent({
    // Passed explicitly so the agent reads the environment we were given, not process.env.
    httpProxy: proxy.httpProxy ?? '',
    httpsProxy: proxy.httpsProxy ?? '',
    noProxy: proxy.noProxy,
    connect: tlsOptions,
    requestTls: tlsOptions,
    proxyTls: tlsOptions,
  });
  const networkFetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher })) as unknown as typeof fetch;
  return {
    fetch: networkFetch,
    proxy,
    certificates,
    proxyFor: (url) => proxyForUrl(url, proxy),
    close: () => dispatcher.close(),
  };
}
