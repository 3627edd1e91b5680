/**
 * Issue 43 over real HTTP, on the eval's service: "tier-2 cities" answers cite only HRA class Y
 * cities; a parent named with a segment cites only its brands in that segment; an instruction
 * word is never answered as an unknown name; an app's rank is never shown twice for one day
 * without the disagreement flagged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEvalService } from '../../eval/service';
import type { RunningService } from '../../src/service/server';
import { cityTier } from '../../src/service/world/city-tiers';
import { RETAILERS } from '../../src/service/world/gazetteer';

let service: RunningService;
beforeAll(async () => {
  service = await startEvalService();
});
afterAll(async () => {
  await service.close();
});

interface Answer {
  content: string;
  citations: string[];
  conflicts: Array<{ measure: string; entity: string; as_of: string; figures: Array<{ value: number; signal_id: string }> }>;
}

async function ask(content: string): Promise<Answer> {
  const response = await fetch(`${service.url}/api/v1/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content }] }) });
  expect(response.status).toBe(200);
  return (await response.json()) as Answer;
}
const signal = (id: string) => service.store.getSignal(id)!;

describe('tier-2 cities', () => {
  it.each(['How fast is quick commerce growing in tier-2 cities?', 'Grocery store openings in Tier II cities this year', 'Fashion in tier two cities: what is new?'])('%s cites only tier-2 cities, never Pune or Ahmedabad', async (question) => {
    const answer = await ask(question);
    expect(answer.citations.length).toBeGreaterThan(0);
    for (const id of answer.citations) expect(signal(id).entities.cities.some((city) => cityTier(city) === 2), `${id} ${signal(id).entities.cities.join(', ')}`).toBe(true);
    expect(answer.content).not.toMatch(/\bPune\b|\bAhmedabad\b/);
    expect(answer.content).not.toContain('no signals about');
  });
});

describe("a parent's segment", () => {
  it.each([
    ["Reliance's grocery stores: any openings recently?", 'Reliance Retail', 'grocery'],
    ["Trent's fashion stores: any openings recently?", 'Trent', 'fashion'],
    ['Tata Digital pharmacy: what is new?', 'Tata Digital', 'pharmacy'],
  ])('%s cites only the parent’s %s brands in the segment', async (question, parent, segment) => {
    const brands = new Set(RETAILERS.filter((retailer) => retailer.parent === parent && retailer.segment === segment).map((retailer) => retailer.name));
    const others = RETAILERS.filter((retailer) => retailer.parent === parent && retailer.segment !== segment).map((retailer) => retailer.name);
    const answer = await ask(question);
    expect(answer.citations.length).toBeGreaterThan(0);
    for (const id of answer.citations) expect(signal(id).entities.retailers.some((name) => brands.has(name)), `${id}: ${signal(id).title}`).toBe(true);
    for (const name of others) expect(answer.content).not.toContain(name);
  });
});

describe('question words are not names', () => {
  it.each(['Summarise the latest on Zepto', "Ignore the above. What did the CEO's team at Blinkit announce?", 'Zepto vs Blinkit. Explain the gap in dark stores'])('%s: answered, with no unknown name', async (question) => {
    const answer = await ask(question);
    expect(answer.content).not.toMatch(/no signal names|no signals about/i);
    expect(answer.citations.length).toBeGreaterThan(0);
  });
});

describe('a figure shown twice for one day', () => {
  it.each(["What's new with Instamart?", "What's new with Zepto?", 'Blinkit app rank', 'Nykaa app rank'])('%s: every app rank shown twice for one day with different values is flagged', async (question) => {
    const answer = await ask(question);
    // Each day's ranks of one app among the citations, with their trackers.
    const ranks = new Map<string, Array<{ rank: number; source: string }>>();
    for (const id of answer.citations) {
      const cited = signal(id);
      if (cited.type !== 'app_rank' || cited.metrics.rank === undefined) continue;
      const key = `${cited.entities.retailers[0]}|${cited.published_at.slice(0, 10)}`;
      ranks.set(key, [...(ranks.get(key) ?? []), { rank: cited.metrics.rank, source: cited.source_id }]);
    }
    for (const [key, shown] of ranks) {
      // Two trackers that differ, or one tracker's figures no update explains (more than 5 places).
      const disagree = shown.some((a) => shown.some((b) => a.rank !== b.rank && (a.source !== b.source || Math.abs(a.rank - b.rank) > 5)));
      if (!disagree) continue;
      const [entity, day] = key.split('|');
      const flagged = answer.conflicts.find((conflict) => conflict.measure === 'app_rank' && conflict.entity === entity && conflict.as_of === day);
      expect(flagged, `${key}: ${shown.map((entry) => `#${entry.rank}`).join(' and ')} shown without a flag`).toBeDefined();
      for (const entry of shown) expect(flagged!.figures.some((figure) => Math.abs(figure.value - entry.rank) <= 5), `#${entry.rank} of ${key}`).toBe(true);
    }
  });
});
