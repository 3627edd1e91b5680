/**
 * Issue 43, item 7: a parent named with a segment means its brands in that segment, and one
 * subject's figure shown twice for one day with values no update explains is a disagreement.
 */
import { describe, expect, it } from 'vitest';
import { findConflicts, plausibleUpdate } from '../../src/service/answers/conflicts';
import { appRankAnswer } from '../../src/service/answers/direct-answers';
import { parseQuestion } from '../../src/service/answers/question';
import { SignalFacts } from '../../src/service/answers/signal-facts';
import { resolveEntities } from '../../src/service/retrieval/entity-resolver';
import type { CorpusSignal, CorpusSource } from '../../src/service/world/signal-types';

describe("a parent's segment", () => {
  it.each([
    ["Reliance's grocery stores: any openings recently?", ['Reliance Smart']],
    ['Reliance Retail fashion openings', ['Reliance Trends', 'Ajio']],
    ['Reliance electronics and beauty stores', ['Reliance Digital', 'Tira']],
    ["Trent's fashion brands: how many stores?", ['Zudio', 'Westside']],
    ['Trent grocery', ['Star Bazaar']],
    ['Tata Digital pharmacy revenue', ['Tata 1mg']],
    ["Flipkart's quick commerce app rank", ['Flipkart Minutes']],
  ])('%s → %j', (question, retailers) => {
    expect(resolveEntities(question).retailers.sort()).toEqual([...retailers].sort());
  });

  it('keeps the whole group without a segment, or when none of its brands is in it, or all are', () => {
    expect(resolveEntities('Reliance openings').retailers.length).toBeGreaterThan(3);
    expect(resolveEntities("Trent's pharmacy plans").retailers.sort()).toEqual(['Star Bazaar', 'Westside', 'Zudio']);
    expect(resolveEntities('Titan jewellery stores').retailers.sort()).toEqual(['CaratLane', 'Tanishq']);
    // A brand named with its group: the group is a qualifier, as before.
    expect(resolveEntities('Star Bazaar (Trent) grocery openings').retailers).toEqual(['Star Bazaar']);
  });
});

const tracker = (id: string, name: string): CorpusSource => ({ id, name, kind: 'app_store_rank', url: `https://${id}.example/`, cadence: 'every 6 hours', dailyRate: 4, health: 'healthy' });
const locator = (id: string, name: string): CorpusSource => ({ ...tracker(id, name), kind: 'store_locator' });
const sources = new Map([tracker('src_play', 'Google Play India shopping ranks'), tracker('src_figures', 'Appfigures India'), locator('src_locator', 'DMart store locator')].map((source) => [source.id, source]));
let serial = 0;
function signal(retailer: string, source: string, at: string, metrics: Record<string, number>, type: CorpusSignal['type'] = 'app_rank'): CorpusSignal {
  serial += 1;
  const id = `sig_${serial.toString(16).padStart(16, '0')}`;
  return { id, slug: id, title: `${retailer} ${JSON.stringify(metrics)}`, summary: '', body: '', source_id: source, url: '', published_at: at, type, entities: { retailers: [retailer], segments: [], cities: [], states: [] }, metrics };
}

describe('a figure shown twice for one subject and day', () => {
  it.each(['Swiggy Instamart', 'Zepto', 'Nykaa'])('%s: #1 and #21 on one tracker one day is flagged; a move of a few places is an update', (app) => {
    const first = signal(app, 'src_play', '2026-11-21T01:55:00.000Z', { rank: 1 });
    const later = signal(app, 'src_play', '2026-11-21T11:53:00.000Z', { rank: 21 });
    const [conflict, ...rest] = findConflicts([first, later], sources);
    expect(rest).toEqual([]);
    expect(conflict).toMatchObject({ measure: 'app_rank', entity: app, as_of: '2026-11-21' });
    expect(conflict!.figures.map((figure) => figure.value)).toEqual([1, 21]);
    expect(conflict!.note).toContain(`[${first.id}]`);
    expect(conflict!.note).toContain(`[${later.id}]`);
    const update = signal(app, 'src_play', '2026-11-21T18:00:00.000Z', { rank: 4 });
    expect(findConflicts([first, update], sources)).toEqual([]);
    // Another day is another figure.
    expect(findConflicts([first, signal(app, 'src_play', '2026-11-22T02:00:00.000Z', { rank: 21 })], sources)).toEqual([]);
  });

  it('lists every value shown once: two trackers and one implausible repeat', () => {
    const play = signal('Swiggy Instamart', 'src_play', '2026-11-21T01:55:00.000Z', { rank: 1 });
    const playLater = signal('Swiggy Instamart', 'src_play', '2026-11-21T11:53:00.000Z', { rank: 21 });
    const figures = signal('Swiggy Instamart', 'src_figures', '2026-11-21T13:53:00.000Z', { rank: 26 });
    const [conflict] = findConflicts([figures, playLater, play], sources);
    expect(conflict!.figures.map((figure) => figure.value)).toEqual([1, 26, 21]);
  });

  it('holds for store counts too: one locator giving 444 and 310 on one day', () => {
    const a = signal('DMart', 'src_locator', '2026-10-26T06:00:00.000Z', { store_count_national: 444 }, 'store_opening');
    const b = signal('DMart', 'src_locator', '2026-10-26T16:00:00.000Z', { store_count_national: 310 }, 'store_opening');
    expect(findConflicts([a, b], sources)).toHaveLength(1);
    expect(findConflicts([a, signal('DMart', 'src_locator', '2026-10-26T18:00:00.000Z', { store_count_national: 446 }, 'store_opening')], sources)).toEqual([]);
  });

  it('calls a move plausible by the measure', () => {
    expect(plausibleUpdate('app_rank', 21, 18)).toBe(true);
    expect(plausibleUpdate('app_rank', 21, 1)).toBe(false);
    expect(plausibleUpdate('store_count', 444, 446)).toBe(true);
    expect(plausibleUpdate('store_count', 444, 426)).toBe(false);
  });
});

describe("two figures on the analyst's day, whatever their UTC times (the 23:30 UTC edge)", () => {
  // 23:30 UTC on 12 Nov is 05:00 on 13 Nov in India and 18:30 on 12 Nov in New York.
  const late = (): CorpusSignal => signal('Zepto', 'src_play', '2026-11-12T23:30:00.000Z', { rank: 4 });
  const indiaMorning = (): CorpusSignal => signal('Zepto', 'src_figures', '2026-11-13T03:00:00.000Z', { rank: 19 });
  const utcNoon = (): CorpusSignal => signal('Zepto', 'src_figures', '2026-11-12T12:00:00.000Z', { rank: 19 });

  it("flags two trackers on one Indian day across UTC midnight, and not two Indian days inside one UTC day", () => {
    const [a, b] = [late(), indiaMorning()];
    expect(findConflicts([a, b], sources)).toMatchObject([{ measure: 'app_rank', entity: 'Zepto', as_of: '2026-11-13' }]);
    expect(findConflicts([a, b], sources)[0]!.note).toContain('on 13 Nov 2026');
    expect(findConflicts([a, b], sources, 'UTC')).toEqual([]);
    const [c, d] = [late(), utcNoon()];
    expect(findConflicts([c, d], sources)).toEqual([]);
    expect(findConflicts([c, d], sources, 'UTC')).toHaveLength(1);
    // New York's day: 18:30 and 07:00 on 12 Nov are one day; 18:30 on 12 Nov and 22:00 on 12 Nov too.
    expect(findConflicts([c, d], sources, 'America/New_York')).toMatchObject([{ as_of: '2026-11-12' }]);
    expect(findConflicts([a, b], sources, 'America/New_York')).toMatchObject([{ as_of: '2026-11-12' }]);
  });

  it("the app-rank answer cites every tracker's report of the analyst's latest day, so the disagreement is shown", () => {
    const facts = new SignalFacts();
    const [a, b] = [late(), indiaMorning()];
    for (const one of [a, b]) facts.add(one);
    const now = Date.parse('2026-11-14T12:00:00.000Z');
    const answerIn = (zone: string) => appRankAnswer(parseQuestion("What is Zepto's app rank?", now, undefined, zone), { facts, sourcesById: sources, now, timeZone: zone });
    const india = answerIn('Asia/Kolkata');
    expect(india.cited.map((cited) => cited.id)).toEqual([a.id, b.id]);
    expect(india.lines[0]).toContain('#4** among shopping apps in India on 13 Nov 2026');
    expect(india.lines[0]).toContain('another tracker ranks it differently that day');
    // In UTC they are two days: the latest day's one report, no disagreement to show.
    const utc = answerIn('UTC');
    expect(utc.cited.map((cited) => cited.id)).toEqual([b.id]);
    expect(utc.lines[0]).toContain('#19** among shopping apps in India on 13 Nov 2026');
  });
});
