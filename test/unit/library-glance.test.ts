/**
 * The first-open glance at an item file (library-glance.ts) may only over-estimate: a file it
 * cannot read plainly is read properly first, and only a certain tombstone is left out.
 */
import { describe, expect, it } from 'vitest';
import { glance } from '../../src/main/services/library/library-glance';

const glanceText = (name: string, text: string) => glance(name, Buffer.from(text));

const file = (fields: Record<string, unknown>): string => JSON.stringify({ formatVersion: 2, id: 'lib_0000000000000001', ...fields }, null, 2);

describe('glancing at an item file', () => {
  it('finds createdAt and whether the item is deleted', () => {
    expect(glanceText('a', file({ createdAt: '2026-11-01T00:00:00.000Z', deletedAt: null }))).toEqual({ name: 'a', newest: '2026-11-01T00:00:00.000Z', maybeLive: true });
    expect(glanceText('a', file({ createdAt: '2026-11-01T00:00:00.000Z', deletedAt: '2026-11-02T00:00:00.000Z' })).maybeLive).toBe(false);
  });

  it('over-estimates when a nested object has a newer createdAt, and counts a nested null deletedAt as maybe live', () => {
    const text = file({ createdAt: '2025-01-01T00:00:00Z', meta: { createdAt: '2026-12-31T00:00:00Z', deletedAt: null }, deletedAt: '2026-01-01T00:00:00Z' });
    expect(glanceText('a', text)).toEqual({ name: 'a', newest: '2026-12-31T00:00:00Z', maybeLive: true });
  });

  it('reads first what it cannot tell: escaped or non-ASCII values, no time at all', () => {
    expect(glanceText('a', file({ createdAt: '2026\\u002d11', deletedAt: null })).newest).toBe('\uffff');
    expect(glanceText('a', file({ createdAt: '२०२६', deletedAt: null })).newest).toBe('\uffff');
    expect(glanceText('a', '{"formatVersion":2').newest).toBe('\uffff');
  });

  it('uses savedAt for a version 1 item (no createdAt, no deletedAt)', () => {
    expect(glanceText('a', JSON.stringify({ formatVersion: 1, id: 'x', savedAt: '2024-05-01T00:00:00Z' }))).toEqual({ name: 'a', newest: '2024-05-01T00:00:00Z', maybeLive: true });
  });
});
