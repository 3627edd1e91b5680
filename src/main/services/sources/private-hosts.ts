/**
 * Intranet sources with consent (issue 47, item 2): whether a source's host is on the analyst's
 * private network, and the hosts they allowed the embedded service to fetch
 * (`--allow-source-host HOST`, one per host, kept in settings).
 *
 * This decides when to ask, not what is safe: the service's own guard (src/service/feed/
 * http-fetcher.ts) still refuses every private address it was not told about, at connect time.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const privateRanges = new BlockList();
for (const [net, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16]] as const) privateRanges.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 96], ['::1', 128], ['fc00::', 7], ['fe80::', 10]] as const) privateRanges.addSubnet(net, prefix, 'ipv6');

/** Private (RFC 1918, unique local), loopback, link-local or shared (CGNAT) address. */
export function isPrivateNetworkAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return privateRanges.check(mapped, 'ipv4');
  const family = isIP(address);
  return family === 4 ? privateRanges.check(address, 'ipv4') : family === 6 ? privateRanges.check(address, 'ipv6') : false;
}

/** The host as the service's flag takes it: the host name or address, lower-cased, no port. */
export function sourceHostOf(raw: string): string | null {
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.hostname.toLowerCase() || null;
  } catch {
    return null;
  }
}

/**
 * The host of `raw` when it is on a private network (its name is `localhost`, or it is, or
 * resolves to, such an address); null for a public host, a `file:` folder or a name that does
 * not resolve (the service then says why it could not fetch it).
 */
export async function privateHostOf(raw: string, resolve: (host: string) => Promise<string[]> = resolveAll): Promise<string | null> {
  const host = sourceHostOf(raw);
  if (!host) return null;
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare.endsWith('.localhost')) return host;
  if (isIP(bare)) return isPrivateNetworkAddress(bare) ? host : null;
  try {
    const addresses = await resolve(bare);
    return addresses.some(isPrivateNetworkAddress) ? host : null;
  } catch {
    return null;
  }
}

async function resolveAll(host: string): Promise<string[]> {
  return (await lookup(host, { all: true })).map((entry) => entry.address);
}

/** The service's flags for the allowed hosts. */
export function sourceHostArgs(hosts: readonly string[]): string[] {
  return hosts.flatMap((host) => ['--allow-source-host', host]);
}
