import { describe, expect, it } from 'vitest';
import { figureRowSubject, figuresOf } from '../../src/service/research/report-builder';
import type { CorpusSignal } from '../../src/service/world/signal-types';

const signal = (entities: Partial<CorpusSignal['entities']>): CorpusSignal => ({
  id: 's1',
  slug: 's1',
  title: 'Vishal Mega Mart opens 12 stores in Lucknow and Kanpur',
  summary: '',
  body: '',
  source_id: 'retail-desk',
  url: null,
  published_at: '2026-12-01T00:00:00.000Z',
  type: 'store_opening',
  entities: { retailers: [], segments: [], cities: [], states: [], ...entities },
  metrics: { stores_opened: 12 },
});

describe("a Key figures row's Signal column names what the figure is about", () => {
  it('the retailer the topic names, not the city, when the signal also carries a learned name', () => {
    expect(figureRowSubject(signal({ retailers: ['Sandeep Bhatia', 'Vishal Mega Mart'], segments: ['grocery'], cities: ['Lucknow'] }), 'Vishal Mega Mart expansion')).toBe('Vishal Mega Mart');
  });

  it('else the first retailer, then the segment, then the place', () => {
    expect(figureRowSubject(signal({ retailers: ['Zepto', 'Blinkit'], cities: ['Bengaluru'] }), 'quick commerce prices')).toBe('Zepto');
    expect(figureRowSubject(signal({ segments: ['grocery'], cities: ['Lucknow'] }), 'grocery chains')).toBe('grocery');
    expect(figureRowSubject(signal({ cities: ['Lucknow'] }), 'Lucknow retail')).toBe('Lucknow');
    expect(figureRowSubject(signal({}), 'anything')).toBeNull();
  });
});

describe("a report's figures (its charts and what changed) name the row's subject too", () => {
  it('a chart of a figure about Vishal Mega Mart in Lucknow is titled by the retailer, as its table row is', () => {
    const topic = 'Vishal Mega Mart expansion';
    const about = signal({ retailers: ['Sandeep Bhatia', 'Vishal Mega Mart'], segments: ['grocery'], cities: ['Lucknow'] });
    const [figure] = figuresOf([about], topic);
    expect(figure!.subject).toBe(figureRowSubject(about, topic));
    expect(figure!.subject).toBe('Vishal Mega Mart');
  });
});
