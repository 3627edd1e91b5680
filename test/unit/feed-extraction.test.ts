/** Extraction rules of the feed: canonical URLs, the gazetteer's word boundaries, metrics with units, charsets, XML refusals. */
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { canonicalUrl, signalIdFor } from '../../src/service/feed/canonical-url';
import { decodeBody } from '../../src/service/feed/charset';
import { htmlToText, listingLinks } from '../../src/service/feed/document-readers';
import { healthOf } from '../../src/service/feed/feed-health';
import { emptyState } from '../../src/service/feed/feed-repository';
import { parseFeedDocument } from '../../src/service/feed/feed-parsers';
import { findEntities } from '../../src/service/feed/gazetteer';
import { classify, extractMetrics, extractSignal } from '../../src/service/feed/signal-extraction';

describe('canonical URL and id', () => {
  it('drops tracking parameters and the fragment, sorts the rest, and gives one id', () => {
    const a = canonicalUrl('https://News.example.com/a/b/?utm_source=x&b=2&a=1&fbclid=y#section');
    expect(a).toBe('https://news.example.com/a/b?a=1&b=2');
    expect(signalIdFor(a!)).toBe(signalIdFor(canonicalUrl('https://news.example.com/a/b?b=2&a=1')!));
    expect(signalIdFor(a!)).toMatch(/^sig_[0-9a-f]{16}$/);
    expect(canonicalUrl('javascript:alert(1)')).toBeNull();
  });
});

describe('gazetteer', () => {
  it('matches aliases on word boundaries and adds states and segments', () => {
    const found = findEntities('Avenue Supermarts (D-Mart) opened in Bangalore and Gurgaon; Puneet said nothing about Pune.');
    expect(found.retailers).toEqual(['DMart']);
    expect(found.cities.sort()).toEqual(['Bengaluru', 'Gurugram', 'Pune']);
    expect(found.states).toEqual(expect.arrayContaining(['Karnataka', 'Haryana', 'Maharashtra']));
    expect(found.segments).toContain('grocery');
  });

  it('counts a name that is also a common word only when capitalised', () => {
    expect(findEntities('an eternal question about more sugar').retailers).toEqual([]);
    expect(findEntities('Eternal said Blinkit grew').retailers).toEqual(['Blinkit']);
  });
});

describe('metrics and type', () => {
  it('keeps money in crore (lakh converted), counts stores and reads growth', () => {
    expect(extractMetrics('Revenue rose 18% year-on-year to ₹1,250 crore with 42 new stores.', 'results')).toMatchObject({ revenue_cr: 1_250, growth_yoy_pct: 18, stores_opened: 42 });
    expect(extractMetrics('It raised Rs 50 lakh.', 'funding')).toMatchObject({ amount_cr: 0.5 });
    expect(extractMetrics('The chain will shut 12 stores.', 'closure')).toMatchObject({ stores_closed: 12 });
    expect(classify('Zepto raises $200 million in Series F')).toBe('funding');
    expect(classify('Zudio opens 40 stores in Chennai')).toBe('store_opening');
  });
});

describe('summary', () => {
  it("a document whose title is its heading: the summary starts at the text, not at the heading's full stop", () => {
    const signal = extractSignal({ sourceId: 'docs', url: 'file:///docs/vmm.md', title: 'Vishal Mega Mart opens 12 stores in Lucknow', text: '# Vishal Mega Mart opens 12 stores in Lucknow\n\nValue retailer Vishal Mega Mart opened 12 stores.', published: '2026-11-12T23:30:00Z', fetchedAt: new Date('2026-11-14T00:00:00Z') })!;
    expect(signal.summary).toBe('Value retailer Vishal Mega Mart opened 12 stores.');
  });
});

describe('charsets', () => {
  it('reads the header, the XML prolog and <meta>, and strips a UTF-8 BOM', () => {
    const text = 'Café – “quoted”';
    expect(decodeBody(iconv.encode(text, 'windows-1252'), 'text/xml; charset=windows-1252').text).toBe(text);
    expect(decodeBody(iconv.encode(`<?xml version="1.0" encoding="ISO-8859-1"?>${text}`, 'windows-1252'), 'text/xml').text).toContain(text);
    expect(decodeBody(iconv.encode(`<html><head><meta charset="windows-1252"></head>${text}`, 'windows-1252'), 'text/html').text).toContain(text);
    expect(decodeBody(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('₹ crore')]), undefined).text).toBe('₹ crore');
  });
});

describe('parsing refuses what it must', () => {
  it('refuses entity declarations and external DTDs, and says what is not a feed', () => {
    expect(() => parseFeedDocument('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><rss><channel><title>&e;</title></channel></rss>', 'text/xml')).toThrow(/entities/);
    expect(() => parseFeedDocument('<?xml version="1.0"?><!DOCTYPE rss SYSTEM "http://evil.example/x.dtd"><rss/>', 'text/xml')).toThrow(/external DTD/);
    expect(() => parseFeedDocument('{"version":"1"}', 'application/json')).toThrow(/not a JSON Feed/);
    expect(() => parseFeedDocument('<svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml')).toThrow(/not RSS, RDF or Atom/);
  });

  it('reads text only: no script, style or handler survives', () => {
    expect(htmlToText('<p onclick="x()">Hi <b>there</b><script>evil()</script><style>p{}</style></p><p>&amp; more</p>')).toBe('Hi there & more');
  });

  it('follows the selector when given, else same-site links in the main content', () => {
    const html = '<nav><a href="/about">About</a></nav><main><a href="/a">A</a><a href="https://other.example/b">B</a><a href="#top">Top</a></main><div class="press"><a href="/p1">P1</a></div>';
    expect(listingLinks(html, 'https://site.example/news/')).toEqual(['https://site.example/a']);
    expect(listingLinks(html, 'https://site.example/news/', '.press a')).toEqual(['https://site.example/p1']);
  });
});

describe('health rule', () => {
  const now = Date.parse('2026-11-20T12:00:00Z');
  const at = (minutesAgo: number): string => new Date(now - minutesAgo * 60_000).toISOString();
  const since = at(600);
  it('is healthy, degraded or down from what happened', () => {
    expect(healthOf(emptyState(), 900, now, since)).toEqual({ health: 'degraded', reason: 'not fetched yet' });
    expect(healthOf({ ...emptyState(), last_fetch_at: at(1), last_success_at: at(1) }, 900, now, since).health).toBe('healthy');
    expect(healthOf({ ...emptyState(), last_fetch_at: at(1), last_success_at: at(40) }, 900, now, since).health).toBe('degraded');
    const failing = { ...emptyState(), last_fetch_at: at(1), last_success_at: at(20), consecutive_failures: 1, last_error: { kind: 'timeout' as const, message: 'No complete answer within 30 s.', at: at(1) } };
    expect(healthOf(failing, 900, now, since)).toEqual({ health: 'degraded', reason: 'last fetch failed: No complete answer within 30 s.' });
    expect(healthOf({ ...failing, consecutive_failures: 3 }, 900, now, since).health).toBe('down');
    expect(healthOf({ ...emptyState(), last_fetch_at: at(1), last_success_at: at(120) }, 900, now, since).health).toBe('down');
  });
});

describe('entity declarations anywhere are refused', () => {
  it('finds one behind a long comment before the DOCTYPE', () => {
    const padded = `<?xml version="1.0"?><!--${'x'.repeat(70 * 1024)}--><!DOCTYPE rss [<!ENTITY e "boom">]><rss version="2.0"><channel><title>t</title><item><title>&e;</title><link>https://example.com/a</link></item></channel></rss>`;
    expect(() => parseFeedDocument(padded, 'application/rss+xml')).toThrow(/declares entities/);
  });
});
