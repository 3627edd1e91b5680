/** Rules behind the honest states of issue #16: figures that disagree, and errors in plain words. */
import { describe, expect, it } from 'vitest';
import { sourceFiguresNote } from '../../src/shared/health';
import { credentialProblem, needsCredential } from '../../src/shared/plain-errors';
import { titleFromQuestion } from '../../src/shared/conversation';

describe('a source whose figures disagree is explained', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  const agoS = (s: number): string => new Date(now - s * 1000).toISOString();
  it('down with 0 items in 24 h but an item 24 seconds ago', () => {
    expect(sourceFiguresNote({ health: 'down', items_24h: 0, last_item_at: agoS(24) }, now)).toMatch(/down with no items in 24 h, yet its last item arrived within the last 24 h/);
  });
  it('a count of 0 with a recent item, or down with recent items', () => {
    expect(sourceFiguresNote({ health: 'healthy', items_24h: 0, last_item_at: agoS(3_600) }, now)).toMatch(/count lags the feed/);
    expect(sourceFiguresNote({ health: 'down', items_24h: 4, last_item_at: agoS(60) }, now)).toMatch(/may be recovering/);
  });
  it('says nothing when the figures agree', () => {
    expect(sourceFiguresNote({ health: 'down', items_24h: 0, last_item_at: agoS(3 * 86_400) }, now)).toBeNull();
    expect(sourceFiguresNote({ health: 'healthy', items_24h: 12, last_item_at: agoS(60) }, now)).toBeNull();
    expect(sourceFiguresNote({ health: 'down', items_24h: 0, last_item_at: null }, now)).toBeNull();
  });
});

describe('errors that need a credential', () => {
  it('are said in plain words that point to Settings', () => {
    const text = credentialProblem('unauthorized', 'Research')!;
    expect(text).toMatch(/^Research needs you to be signed in/);
    expect(text).toContain('Settings › Credential');
    expect(text).not.toMatch(/JWT|X-API-Key|bearer/i);
    expect(credentialProblem('unauthorized', 'Research', { credentialSet: true })).toMatch(/refused your credential as invalid or expired.*Renew it in Settings/);
    expect(credentialProblem('forbidden', 'Research')).toMatch(/does not allow research/);
    expect(credentialProblem('rate_limited', 'Research')).toBeNull();
    expect(needsCredential('unauthorized')).toBe(true);
    expect(needsCredential('network')).toBe(false);
  });
});

describe('conversation titles', () => {
  it('keep the whole first question (views truncate)', () => {
    const question = 'How many dark stores does Zepto operate in Mumbai and Bengaluru, and which retailer is expanding fastest there?';
    expect(titleFromQuestion(`  ${question}\n`)).toBe(question);
    expect(titleFromQuestion('a\n\n  b')).toBe('a b');
  });
});
