/**
 * The fetch the browser host and the service CLI use for every service request: it honours
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY (undici's EnvHttpProxyAgent) and the certificates a company
 * adds. (In Electron, requests go through Chromium's net.fetch instead: system proxy, PAC, the OS
 * certificate store.)
 *
 * Certificates on Node 20 (what this project runs on):
 * - NODE_EXTRA_CA_CERTS=<pem file> is read by Node at start-up; we read it here too, because an
 *   explicit CA list replaces Node's default one.
 * - NODE_USE_SYSTEM_CA=1 is only understood by Node ≥ 22.15 / 23.8. On Node 20 we honour it
 *   ourselves on Linux by reading the distribution's bundle (SSL_CERT_FILE or the usual paths,
 *   where `update-ca-certificates` puts a company's root). Node 20 cannot read the Windows or
 *   macOS store: there, export the company root to PEM and use NODE_EXTRA_CA_CERTS.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as tls from 'node:tls';
import { EnvHttpProxyAgent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { proxyForUrl, proxySettingsFromEnv, validateProxyUrl, type ProxyEnv, type ProxySettings } from './proxy-env';

const LINUX_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/ca-bundle.pem', '/etc/ssl/cert.pem'];

export interface TrustedCertificates {
  /** Explicit CA list, or undefined to keep Node's default store. */
  ca: string[] | undefined;
  /** Where trust comes from, for Settings and logs. */
  sources: string[];
  /** Settings that could not be honoured, said plainly. */
  warnings: string[];
}

type CaFunctions = { getCACertificates?: (kind: 'system' | 'bundled' | 'extra' | 'default') => string[] };

export function trustedCertificates(env: ProxyEnv, platform: NodeJS.Platform = process.platform): TrustedCertificates {
  const extraFile = env.NODE_EXTRA_CA_CERTS?.trim();
  const useSystem = env.NODE_USE_SYSTEM_CA === '1';
  const warnings: string[] = [];
  if (!extraFile && !useSystem) return { ca: undefined, sources: ["Node's bundled roots"], warnings };
  const ca = [...tls.rootCertificates];
  const sources = ["Node's bundled roots"];
  if (useSystem) {
    const getCACertificates = (tls as CaFunctions).getCACertificates;
    if (getCACertificates) {
      ca.push(...getCACertificates('system'));
      sources.push('the operating system store');
    } else if (platform === 'linux') {
      const bundle = [env.SSL_CERT_FILE, ...LINUX_BUNDLES].find((file): file is string => Boolean(file) && existsSync(file!));
      if (bundle) {
        ca.push(readFileSync(bundle, 'utf8'));
        sources.push(`the system bundle ${bundle}`);
      } else warnings.push('NODE_USE_SYSTEM_CA=1, but no system certificate bundle was found.');
    } else {
      warnings.push(`NODE_USE_SYSTEM_CA=1 needs Node 22.15 or later on ${platform}; export the company root certificate to PEM and set NODE_EXTRA_CA_CERTS.`);
    }
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
