/**
 * SECURITY: webhooks must not turn the service into a way to reach private networks (SSRF).
 * Every address a webhook host resolves to is checked when the webhook is registered and
 * again at connect time (the lookup hook), so DNS that changes its answer cannot slip past.
 * Private, loopback, link-local and other special ranges are refused unless the service was
 * started with `--allow-private-webhooks` (tests and local development).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
// ::/96 holds the old IPv4-compatible form ([::127.0.0.1] is ::7f00:1); 2002::/16 (6to4) and
// 2001::/32 (Teredo) embed IPv4 addresses too.
for (const [net, prefix] of [['::', 96], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32], ['2002::', 16], ['2001::', 32]] as const) blocked.addSubnet(net, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return blocked.check(mapped, 'ipv4');
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) return blocked.check(address, 'ipv6');
  return true;
}

/** Resolves the URL's host; a reason to refuse it, or null when every address is public. */
export async function refuseReason(url: URL, allowPrivate: boolean): Promise<string | null> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'only http and https URLs are accepted';
  if (url.username || url.password) return 'credentials in the URL are not accepted; authenticate with the signature';
  if (allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    return `the host ${host} does not resolve`;
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    return `${host} is a private, loopback or reserved address (allowed only when the service runs with --allow-private-webhooks)`;
  }
  return null;
}
