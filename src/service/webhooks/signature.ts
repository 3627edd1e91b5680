/**
 * Webhook signatures: `X-Clarity-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`
 * with the webhook's secret. A receiver recomputes the HMAC over the raw body, compares in
 * constant time and rejects a `t` older than its tolerance (replays); docs/service-extensions.md.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-clarity-signature';
/** What receivers should accept as clock skew plus delivery time (and what our verifier uses). */
export const DEFAULT_TOLERANCE_S = 300;

export function sign(secret: string, body: string, unixSeconds: number): string {
  const hex = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${hex}`;
}

/** The receiver's check: a v1 signature that matches, made within the tolerance. */
export function verifySignature(secret: string, body: string, header: string | undefined, nowSeconds: number, toleranceS = DEFAULT_TOLERANCE_S): boolean {
  if (!header) return false;
  const parts = new Map<string, string[]>();
  for (const item of header.split(',')) {
    const [key, value] = item.trim().split('=', 2);
    if (key && value) parts.set(key, [...(parts.get(key) ?? []), value]);
  }
  const t = Number(parts.get('t')?.[0]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceS) return false;
  const expected = Buffer.from(sign(secret, body, t).split('v1=')[1]!, 'hex');
  return (parts.get('v1') ?? []).some((candidate) => {
    const given = Buffer.from(candidate, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
