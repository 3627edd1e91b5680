/**
 * Which proxy a request uses in the browser host and the service CLI: HTTPS_PROXY / HTTP_PROXY /
 * NO_PROXY (either case), with the same matching rules as undici's EnvHttpProxyAgent, which does
 * the actual dispatching. Kept separate so Settings and the connection test can say which proxy
 * is in use for a URL without sending anything. Loopback is never proxied: the embedded service
 * listens on 127.0.0.1 and a corporate proxy cannot reach it.
 */

export type ProxyEnv = Record<string, string | undefined>;

export interface ProxySettings {
  httpProxy: string | null;
  httpsProxy: string | null;
  /** NO_PROXY as given plus the loopback names we always add. */
  noProxy: string;
}

export const ALWAYS_DIRECT = ['localhost', '127.0.0.1', '::1', '[::1]'];

function pick(env: ProxyEnv, name: string): string | null {
  const value = env[name.toLowerCase()] ?? env[name.toUpperCase()];
  return value && value.trim() ? value.trim() : null;
}

/** Proxy URLs must be http(s) with a host; anything else is reported, not silently used. */
export function validateProxyUrl(value: string): { ok: true; url: URL } | { ok: false; error: string } {
  let url: URL;
  try {
    url = new URL(value.includes('://') ? value : `http://${value}`);
  } catch {
    return { ok: false, error: `"${value}" is not a proxy address (expected http://host:port).` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, error: `Proxy scheme ${url.protocol} is not supported (use http:// or https://).` };
  if (!url.hostname) return { ok: false, error: `"${value}" has no host.` };
  return { ok: true, url };
}

export function proxySettingsFromEnv(env: ProxyEnv): ProxySettings {
  const httpProxy = pick(env, 'http_proxy');
  const httpsProxy = pick(env, 'https_proxy') ?? httpProxy;
  const given = pick(env, 'no_proxy') ?? '';
  const noProxy = given === '*' ? '*' : [given, ...ALWAYS_DIRECT].filter(Boolean).join(',');
  return { httpProxy, httpsProxy, noProxy };
}

interface NoProxyEntry {
  hostname: string;
  port: number;
}

function parseNoProxy(value: string): NoProxyEntry[] {
  return value
    .split(/[,\s]/)
    .filter(Boolean)
    .map((entry) => {
      const parsed = /^(.+):(\d+)$/.exec(entry);
      return { hostname: (parsed ? parsed[1]! : entry).replace(/^\*?\./, '').toLowerCase(), port: parsed ? Number(parsed[2]) : 0 };
    });
}

/** The proxy URL a request to `target` goes through, or null for a direct connection. */
export function proxyForUrl(target: string | URL, settings: ProxySettings): string | null {
  const url = typeof target === 'string' ? new URL(target) : target;
  const proxy = url.protocol === 'https:' ? settings.httpsProxy : settings.httpProxy;
  if (!proxy) return null;
  if (settings.noProxy === '*') return null;
  const hostname = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  for (const entry of parseNoProxy(settings.noProxy)) {
    if (entry.port && entry.port !== port) continue;
    if (hostname === entry.hostname || hostname.endsWith(`.${entry.hostname}`)) return null;
  }
  return proxy;
}

/** A proxy URL fit to show: the password (if any) is never displayed. */
export function displayProxy(proxy: string | null): string {
  if (!proxy) return 'none (direct connection)';
  const valid = validateProxyUrl(proxy);
  if (!valid.ok) return proxy.replace(/\/\/[^@/]*@/, '//***@');
  const url = valid.url;
  const user = url.username ? `${decodeURIComponent(url.username)}:***@` : '';
  return `${url.protocol}//${user}${url.host}`;
}
