import { describe, expect, it } from 'vitest';
import { interpretAskMessage } from '../../src/main/services/service-client/ask-events';
import { parseRetryAfter } from '../../src/main/services/service-client/api-client';
import { credentialKind } from '../../src/main/services/credentials/credential-store';
import { safeExternalUrl } from '../../src/main/services/links/external-links';
import { HTTPS_OR_LOOPBACK_URL } from '../../src/shared/bridge-contract';
import { confidenceLabel, normalizeConfidence } from '../../src/shared/confidence';

describe('confidence', () => {
  it.each([
    [0.42, 0.42],
    [1, 1],
    [0, 0],
    [73, 0.73],
    [100, 1],
    ['high', 0.85],
    ['Medium', 0.55],
    ['low', 0.25],
    [-1, null],
    [101, null],
    ['certain', null],
    [Number.NaN, null],
    [null, null],
    // Other shapes a service may choose (issue #14).
    ['0.72', 0.72],
    ['72%', 0.72],
    [' 85 ', 0.85],
    ['very high', 0.95],
    ['Very_Low', 0.1],
    ['moderate', 0.55],
    [{ score: 0.6 }, 0.6],
    [{ value: '40' }, 0.4],
    [{ level: 'high' }, 0.85],
    [{ nothing: 1 }, null],
    [250, null],
    ['very very high', null],
    [[0.5], null],
  ])('%s → %s', (input, expected) => {
    expect(normalizeConfidence(input)).toBe(expected);
  });
  it('labels', () => {
    expect([0.2, 0.5, 0.9].map(confidenceLabel)).toEqual(['low', 'medium', 'high']);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');
  it.each([
    ['120', 120],
    [' 7 ', 7],
    ['Sat, 21 Nov 2026 10:00:30 GMT', 30],
    ['Sat, 21 Nov 2026 09:00:00 GMT', 0],
    ['soon', null],
    ['-5', null],
    ['1.5', null],
    [null, null],
  ])('%s → %s', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe('external links allow-list', () => {
  it.each([
    ['https://economictimes.example/article?id=1', 'https://economictimes.example/article?id=1'],
    ['http://example.com', 'http://example.com/'],
    ['mailto:analyst@example.com', 'mailto:analyst@example.com'],
    ['  https://example.com/x  ', 'https://example.com/x'],
    ['javascript:alert(1)', null],
    ['JaVaScRiPt:alert(1)', null],
    ['data:text/html,<script>alert(1)</script>', null],
    ['file:///etc/passwd', null],
    ['vbscript:msgbox', null],
    ['https://user:pass@example.com/', null],
    ['//example.com', null],
    ['/relative/path', null],
    ['smb://share/x', null],
    ['chrome://settings', null],
    ['not a url', null],
  ])('%s → %s', (input, expected) => {
    expect(safeExternalUrl(input)).toBe(expected);
  });
});

describe('service base URL setting', () => {
  it.each([
    ['https://retail-signal.example.com', true],
    ['http://127.0.0.1:4318', true],
    ['http://localhost:4318', true],
    ['http://retail-signal.example.com', false],
    ['https://user:pw@retail-signal.example.com', false],
    ['ftp://x', false],
    ['', false],
  ])('%s allowed: %s', (url, allowed) => {
    expect(HTTPS_OR_LOOPBACK_URL.safeParse(url).success).toBe(allowed);
  });
});

describe('credential kinds', () => {
  it('recognises API keys, JWTs and other tokens', () => {
    expect(credentialKind('ck_abcdefghijklmnopqrstuvwxyzABCDEF')).toBe('api-key');
    expect(credentialKind('eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1In0.sig-_x')).toBe('jwt');
    expect(credentialKind('some-opaque-token')).toBe('token');
  });
});

describe('ask SSE events are read defensively', () => {
  const message = (event: string, data: string) => ({ event, data, id: undefined });
  it('normalises known frames', () => {
    expect(interpretAskMessage(message('content_block_delta', '{"index":0,"delta":{"type":"text_delta","text":"Hi"},"extra":1}'))).toEqual({ kind: 'event', event: { type: 'text', text: 'Hi' } });
    expect(interpretAskMessage(message('clarity.confidence_updated', '{"confidence":"high"}'))).toEqual({ kind: 'event', event: { type: 'confidence', value: 0.85 } });
    expect(interpretAskMessage(message('clarity.confidence_updated', '{"confidence":64}'))).toEqual({ kind: 'event', event: { type: 'confidence', value: 0.64 } });
    expect(interpretAskMessage(message('message_stop', '{}'))).toEqual({ kind: 'stop' });
    expect(interpretAskMessage(message('error', '{"error":{"error":"unavailable","message":"Try later"}}'))).toEqual({ kind: 'error', error: { code: 'unavailable', message: 'Try later' } });
  });
  it('ignores unknown events, pings and malformed JSON without failing', () => {
    expect(interpretAskMessage(message('clarity.something_new', '{"x":1}'))).toEqual({ kind: 'ignored', reason: 'unknown_event' });
    expect(interpretAskMessage(message('ping', ''))).toEqual({ kind: 'ignored', reason: 'keep_alive' });
    expect(interpretAskMessage(message('content_block_delta', '{"index":0,"delta":'))).toEqual({ kind: 'ignored', reason: 'malformed' });
    expect(interpretAskMessage(message('clarity.citation_emitted', '{"citation":42}'))).toEqual({ kind: 'ignored', reason: 'malformed' });
  });
});

describe('conflicting figures frame (issue 30)', () => {
  const frame = (data: string) => interpretAskMessage({ event: 'clarity.conflicts_flagged', data, id: undefined });
  it('reads each conflict with its figures and sources; drops entries without two cited figures', () => {
    const data = JSON.stringify({
      conflicts: [
        { measure: 'app_rank', entity: 'Zepto', place: 'India', as_of: '2026-11-21', note: 'n', figures: [{ value: 49, signal_id: 'sig_a', source_name: 'Tracker A' }, { value: 42, signal_id: 'sig_b', source_id: 'src_b' }] },
        { measure: 'app_rank', entity: 'Solo', figures: [{ value: 1, signal_id: 'sig_c' }] },
        'junk',
      ],
    });
    expect(frame(data)).toEqual({
      kind: 'event',
      event: { type: 'conflicts', conflicts: [{ measure: 'app_rank', entity: 'Zepto', place: 'India', asOf: '2026-11-21', note: 'n', figures: [{ value: 49, citation: 'sig_a', source: 'Tracker A' }, { value: 42, citation: 'sig_b', source: 'src_b' }] }] },
    });
    expect(frame('{"conflicts": "no"}')).toEqual({ kind: 'ignored', reason: 'malformed' });
  });
});
