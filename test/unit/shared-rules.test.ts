/**
 * Rules kept once in src/shared and used by main, the renderer and the service alike: the
 * page's CSP, how an answer ends, error codes, the citation marker and citation snapshots.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CITATION_MARKER, orderedCitations } from '../../src/shared/cite-format';
import { citationSnapshotOf } from '../../src/shared/citation';
import { emptyAnswer, endAnswer } from '../../src/shared/answer-rules';
import { PAGE_CONNECT_SRC, rendererCsp } from '../../src/shared/csp';
import { ERROR_CODES, knownServiceErrorCode, type CitationPayload, type Signal, type SourceEntry } from '../../src/shared/service-schemas';
import { contentSecurityPolicy } from '../../src/main/browser-host/browser-host';

describe('content security policy', () => {
  it('is the one in src/renderer/index.html', () => {
    const html = readFileSync('src/renderer/index.html', 'utf8');
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1];
    expect(meta).toBe(rendererCsp({ connectSrc: PAGE_CONNECT_SRC, delivery: 'meta' }));
  });

  it('lets the Electron page connect nowhere and the browser host page to its own socket only', () => {
    expect(rendererCsp({ connectSrc: [], delivery: 'header' })).toContain("connect-src 'none'");
    const browser = contentSecurityPolicy(5178);
    expect(browser).toContain('connect-src ws://127.0.0.1:5178 ws://localhost:5178;');
    expect(browser).toContain("frame-ancestors 'none'");
    expect(browser).toContain("script-src 'self';");
  });
});

describe('how an answer ends', () => {
  const withText = { ...emptyAnswer(), text: 'Partial answer', status: 'streaming' as const };
  it('is done without an error', () => {
    expect(endAnswer(withText, null)).toMatchObject({ status: 'done', error: null, text: 'Partial answer' });
  });
  it('is cancelled (no error shown) when the user stopped it', () => {
    expect(endAnswer(withText, { code: 'aborted', message: 'Cancelled.' })).toMatchObject({ status: 'cancelled', error: null });
  });
  it('is incomplete with the text that arrived, or failed with none', () => {
    const error = { code: 'network', message: 'Lost the service.' };
    expect(endAnswer(withText, error)).toMatchObject({ status: 'incomplete', error, text: 'Partial answer' });
    expect(endAnswer(emptyAnswer(), error)).toMatchObject({ status: 'failed', error });
  });
});

describe('error codes', () => {
  it('keeps every code of the interface and maps anything else to internal', () => {
    for (const code of ERROR_CODES) expect(knownServiceErrorCode(code)).toBe(code);
    expect(knownServiceErrorCode('teapot')).toBe('internal');
  });
});

describe('citations', () => {
  it('finds the same markers every time the shared pattern is used', () => {
    const text = 'Up [sig_0123456789abcdef] and [sig_fedcba9876543210], again [sig_0123456789abcdef].';
    const first = [...text.matchAll(CITATION_MARKER)].map((m) => m[1]);
    const second = [...text.matchAll(CITATION_MARKER)].map((m) => m[1]);
    expect(first).toEqual(['sig_0123456789abcdef', 'sig_fedcba9876543210', 'sig_0123456789abcdef']);
    expect(second).toEqual(first);
    const none: CitationPayload[] = [];
    expect(orderedCitations(text, none).map((c) => c.citation.id)).toEqual(['sig_0123456789abcdef', 'sig_fedcba9876543210']);
  });

  it('snapshots a signal with its source health at the moment of citing', () => {
    const signal: Signal = {
      id: 'sig_0123456789abcdef', slug: 's', title: 'Zudio opens 40 stores', summary: 'Forty stores.', body: 'Zudio opened forty stores.', source_id: 'src_a',
      url: 'https://retail.example/zudio', published_at: '2026-11-01T00:00:00Z', type: 'store_openings',
      entities: { retailers: ['Zudio'], segments: ['apparel'], cities: ['Pune'], states: ['Maharashtra'] }, metrics: { stores: 40 },
    };
    const source: SourceEntry = { id: 'src_a', name: 'Retail Wire', kind: 'news', health: 'degraded', cadence: 'hourly', items_24h: 12 };
    expect(citationSnapshotOf(signal, source, '2026-11-02T00:00:00Z')).toEqual({
      id: signal.id, title: signal.title, source_id: 'src_a', source_name: 'Retail Wire', published_at: signal.published_at, url: signal.url, slug: 's', snippet: 'Forty stores.',
      detail: { type: 'store_openings', body: signal.body, entities: signal.entities, metrics: { stores: 40 }, sourceKind: 'news', healthWhenCited: 'degraded', itemsWhenCited: 12, citedAt: '2026-11-02T00:00:00Z' },
    });
    expect(citationSnapshotOf(signal, null, 'now').detail).toMatchObject({ sourceKind: null, healthWhenCited: null, itemsWhenCited: null });
  });
});
