import { describe, expect, it } from 'vitest';
import { generateCorpus, uniqueSlugs, type CorpusSignal } from '../../src/service/corpus/generator';
import { RateLimiter } from '../../src/service/rate-limiter';
import { extractEntities, SignalSearchIndex } from '../../src/service/retrieval/search-index';
import { splitIntoDeltas } from '../../src/service/routes/ask';
import { composeAnswer } from '../../src/service/answers/composer';

describe('corpus generator', () => {
  it('gives every signal its own slug: a later one whose six-character suffix is taken gets its whole id', () => {
    // At a million signals repeated template titles met the same six hex characters of the id
    // (the storage bench's load failed on the database's unique slug).
    const signal = (id: string): CorpusSignal => ({ ...generateCorpus({ signalCount: 1 }).signals[0]!, id, slug: `same-title-${id.slice(4, 10)}` });
    const signals = [signal('sig_abcdef0000000001'), signal('sig_abcdef0000000002'), signal('sig_1234560000000003')];
    uniqueSlugs(signals);
    expect(signals.map((s) => s.slug)).toEqual(['same-title-abcdef', 'same-title-abcdef0000000002', 'same-title-123456']);
  });

  const corpus = generateCorpus();

  it('makes ~150 sources and 20,000 signals with sig_ + 16 hex ids', () => {
    expect(corpus.sources.length).toBeGreaterThanOrEqual(130);
    expect(corpus.sources.length).toBeLessThanOrEqual(170);
    expect(corpus.signals.length).toBe(20_000);
    expect(new Set(corpus.signals.map((s) => s.id)).size).toBe(20_000);
    for (const signal of corpus.signals.slice(0, 500)) expect(signal.id).toMatch(/^sig_[0-9a-f]{16}$/);
  });

  it('spans 18 months and covers every segment', () => {
    const dates = corpus.signals.map((s) => Date.parse(s.published_at));
    const spanDays = (Math.max(...dates) - Math.min(...dates)) / 86_400_000;
    expect(spanDays).toBeGreaterThan(500);
    expect(spanDays).toBeLessThan(560);
    const segments = new Set(corpus.signals.flatMap((s) => s.entities.segments));
    expect([...segments].sort()).toEqual(['beauty', 'electronics', 'fashion', 'grocery', 'jewellery', 'pharmacy', 'quick commerce']);
    const kinds = new Set(corpus.sources.map((s) => s.kind));
    expect(kinds.size).toBe(9);
  });

  it('is reproducible from its seed', () => {
    const again = generateCorpus();
    expect(again.signals.slice(0, 50)).toEqual(corpus.signals.slice(0, 50));
    expect(generateCorpus({ seed: 7, signalCount: 50 }).signals[0]!.id).not.toBe(corpus.signals[0]!.id);
  });
});

describe('retrieval', () => {
  const corpus = generateCorpus({ signalCount: 4_000 });
  const index = new SignalSearchIndex(corpus.signals);

  it('finds the entities a question names', () => {
    expect(extractEntities('How fast is quick commerce growing in Bangalore?')).toMatchObject({ segments: ['quick commerce'], cities: ['Bengaluru'] });
    expect(extractEntities("Tanishq's stores in Kerala")).toMatchObject({ retailers: ['Tanishq'], states: ['Kerala'] });
  });

  it('ranks signals that match the question entities first', () => {
    const hits = index.search('quick commerce Bengaluru', { now: Date.parse('2026-11-01') });
    expect(hits.length).toBeGreaterThan(3);
    for (const hit of hits.slice(0, 5)) {
      expect(hit.signal.entities.segments).toContain('quick commerce');
      expect(hit.signal.entities.cities).toContain('Bengaluru');
    }
  });

  it('makes a new signal retrievable the moment it is added', () => {
    const fresh = { ...corpus.signals[0]!, id: 'sig_ffffffffffffffff', slug: 'x', title: 'Zyxwv unique marker title', body: 'Zyxwv unique marker' };
    index.add(fresh);
    expect(index.search('zyxwv')[0]!.signal.id).toBe('sig_ffffffffffffffff');
  });

  it('composes an answer whose every citation appears as a marker, and says so when nothing matches', () => {
    const sources = new Map(corpus.sources.map((s) => [s.id, s]));
    const answer = composeAnswer('Zudio stores', index.search('Zudio stores'), sources, Date.parse('2026-11-01'));
    for (const signal of answer.citations) expect(answer.content).toContain(`[${signal.id}]`);
    expect(answer.confidence).toBeGreaterThan(0);
    expect(answer.confidence).toBeLessThanOrEqual(1);
    const none = composeAnswer('qqqq', [], sources, Date.now());
    expect(none.citations).toEqual([]);
    expect(none.content).toMatch(/could not find/);
  });
});

describe('deltas', () => {
  it('split text into pieces that rejoin exactly and never cut a citation marker', () => {
    const text = 'A claim [sig_0123456789abcdef] and — another ₹5 crore [sig_fedcba9876543210].\n\n| a | b |';
    const deltas = splitIntoDeltas(text, 2);
    expect(deltas.join('')).toBe(text);
    expect(deltas.some((d) => d.includes('[sig_0123456789abcdef]'))).toBe(true);
  });
});

describe('rate limiter', () => {
  it('allows exactly the limit per window and resets with the window', () => {
    let now = 0;
    const limiter = new RateLimiter(undefined, () => now);
    for (let i = 0; i < 5; i += 1) expect(limiter.take('research', 'ip:a').allowed).toBe(true);
    const refused = limiter.take('research', 'ip:a');
    expect(refused).toEqual({ allowed: false, remaining: 0, retryAfterS: 300 });
    expect(limiter.take('research', 'ip:b').allowed).toBe(true);
    now = 299_000;
    expect(limiter.take('research', 'ip:a').retryAfterS).toBe(1);
    now = 300_000;
    expect(limiter.take('research', 'ip:a')).toMatchObject({ allowed: true, remaining: 4 });
    expect(limiter.peek('propose', 'ip:a')).toMatchObject({ allowed: true, remaining: 3 });
  });
});
