/**
 * The tolerant reader's small rules (issue #14); the whole variants run through the bridge in
 * test/integration/compatibility.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { readAnswer, readCadence, readHealthSnapshot, readHealthWord, readReport, readResearchState, readResearchStatus } from '../../src/main/services/service-client/service-readers';

describe('tolerant reader', () => {
  it.each([
    ['healthy', 'healthy'],
    ['OK', 'healthy'],
    [true, 'healthy'],
    ['Degraded', 'degraded'],
    ['stale', 'degraded'],
    ['OFFLINE', 'down'],
    [false, 'down'],
    ['maintenance', 'unknown'],
    [null, 'unknown'],
  ] as const)('health word %s → %s', (word, expected) => {
    expect(readHealthWord(word)).toBe(expected);
  });

  it.each([
    ['hourly', 'hourly'],
    [3600, 'every 1 h'],
    [900, 'every 15 min'],
    [172_800, 'every 2 d'],
    [45, 'every 45 s'],
    [{ every: 600 }, 'every 10 min'],
    [-5, null],
    [undefined, null],
  ] as const)('cadence %s → %s', (value, expected) => {
    expect(readCadence(value)).toBe(expected);
  });

  it.each([
    ['queued', 'queued'],
    ['In Progress', 'running'],
    ['in-progress', 'running'],
    ['SUCCEEDED', 'completed'],
    ['canceled', 'failed'],
    ['paused_for_review', null],
  ] as const)('research status %s → %s', (value, expected) => {
    expect(readResearchState(value)).toBe(expected);
  });

  it('names what is missing from a health snapshot', () => {
    expect(readHealthSnapshot({ sources: [] })).toEqual({ ok: false, problem: 'The health snapshot could not be read: it has no "stats" object; it has no "oracle" object.' });
    expect(readHealthSnapshot({ stats: {}, oracle: { window: '24h' }, sources: [{ health: 'ok', cadence: 'daily' }] })).toEqual({
      ok: false,
      problem: 'The health snapshot could not be read: its "oracle" has no miss-rate; source 1 ("source 1") has no items_24h.',
    });
  });

  it('keeps unknown fields and gives repeated ids their own', () => {
    const read = readHealthSnapshot({ stats: { extra: 'kept' }, oracle: { miss_rate: 0.1 }, sources: [{ id: 'a', health: 'up', cadence: 'daily', items_24h: '5', owner: 'x' }, { id: 'a', health: 'up', cadence: 'daily', items_24h: 1 }] });
    expect(read.ok && read.value.stats.extra).toBe('kept');
    expect(read.ok && read.value.sources.map((s) => [s.id, s.items_24h, s.owner])).toEqual([['a', 5, 'x'], ['a#2', 1, undefined]]);
  });

  it('reads answers and reports by what they must carry', () => {
    expect(readAnswer({ citations: [] })).toEqual({ ok: false, problem: 'The answer has no "content" text.' });
    expect(readAnswer({ content: 'x', confidence: 'certainly', session_id: 12 })).toEqual({ ok: true, value: { content: 'x', citations: [], confidence: null, sessionId: '12', sessionSlug: null } });
    expect(readReport({ title: 'no text' })).toEqual({ ok: false, problem: 'The report has no "markdown" text.' });
    expect(readReport({ markdown: 'm', citations: ['sig_00000000000000a1', { id: 'sig_00000000000000b2', title: 't' }, 7, {}] })).toMatchObject({
      ok: true,
      value: { citations: [{ id: 'sig_00000000000000a1', fields: {} }, { id: 'sig_00000000000000b2', fields: { title: 't' } }, { id: '7', fields: {} }] },
    });
    expect(readResearchStatus({ id: 'r' })).toEqual({ ok: false, problem: 'The research status has no "status".' });
    expect(readResearchStatus({ status: 'done', markdown: '# r' })).toMatchObject({ ok: true, value: { state: 'completed', reported: 'done', reportUrl: null, inlineReport: { markdown: '# r' } } });
  });
});
