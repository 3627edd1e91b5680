/** Reading any service's Deprecation (RFC 9745), Sunset (RFC 8594) and deprecation Link. */
import { describe, expect, it } from 'vitest';
import { findLink, readDeprecation } from '../../src/main/services/service-client/deprecation-headers';

const BASE = 'https://svc.example/api/v1/research';
const read = (headers: Record<string, string>) => readDeprecation(new Headers(headers), BASE);

describe('readDeprecation', () => {
  it('reads an RFC 9651 date, an HTTP-date Sunset and a relative deprecation link', () => {
    expect(read({ deprecation: '@1793491200', sunset: 'Sat, 01 May 2027 00:00:00 GMT', link: '</developer/changelog>; rel="deprecation"; type="text/html"' })).toEqual({
      deprecated: true,
      deprecatedAt: '2026-11-01T00:00:00.000Z',
      sunsetAt: '2027-05-01T00:00:00.000Z',
      link: 'https://svc.example/developer/changelog',
    });
  });

  it('accepts the earlier drafts\' forms: `true` and an HTTP-date', () => {
    expect(read({ deprecation: 'true' })).toMatchObject({ deprecated: true, deprecatedAt: null, sunsetAt: null });
    expect(read({ deprecation: 'Sun, 01 Nov 2026 00:00:00 GMT' })?.deprecatedAt).toBe('2026-11-01T00:00:00.000Z');
  });

  it('takes a Sunset alone as an announcement, and garbage as an unknown date, never an error', () => {
    expect(read({ sunset: 'Sat, 01 May 2027 00:00:00 GMT' })).toMatchObject({ deprecated: false, sunsetAt: '2027-05-01T00:00:00.000Z' });
    expect(read({ deprecation: '@soon', sunset: '12345' })).toMatchObject({ deprecated: true, deprecatedAt: null, sunsetAt: null });
    expect(read({ link: '</x>; rel="deprecation"' })).toBeNull();
  });

  it('finds the deprecation link among several, and drops any that is not a web page', () => {
    const header = '<https://svc.example/docs>; rel="help", <https://svc.example/a,b>; rel="alternate deprecation"; title="x, y"';
    expect(findLink(header, ['deprecation'], BASE)).toBe('https://svc.example/a,b');
    expect(findLink('<javascript:alert(1)>; rel="deprecation"', ['deprecation'], BASE)).toBeNull();
    expect(findLink('<file:///etc/passwd>; rel=deprecation', ['deprecation'], BASE)).toBeNull();
    expect(findLink('<https://svc.example/sunset>; rel=sunset', ['deprecation', 'sunset'], BASE)).toBe('https://svc.example/sunset');
  });
});
