// Where a run was made, as the analyst reads it: the embedded local service answers on a loopback
// address with a port that changes at each start ("127.0.0.1:38683"), which means nothing to them.

const LOOPBACK = /^(127(?:\.\d{1,3}){3}|localhost|\[::1\])$/i;

/** "on this computer" for the local service (any loopback address), "via <host>" for a service elsewhere. */
export function whereItRan(serviceUrl: string): string {
  let url: URL;
  try {
    url = new URL(serviceUrl);
  } catch {
    return serviceUrl ? `via ${serviceUrl}` : '';
  }
  return LOOPBACK.test(url.hostname) ? 'on this computer' : `via ${url.host}`;
}
