/**
 * Issue 30: an answer about a chain that belongs to a larger group cites signals about that
 * chain, not about the group's other brands (Reliance Smart is Reliance Retail's, beside Trends
 * and JioMart; Star Bazaar is Trent's, beside Zudio and Westside). Real local service over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/server';
import { ask, postJson, startTestService } from '../support/local-service';

let service: RunningService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());

async function citedRetailers(question: string): Promise<string[][]> {
  const answer = (await (await postJson(`${service.url}/api/v1/ask`, ask(question))).json()) as { citations: string[] };
  expect(answer.citations.length).toBeGreaterThan(0);
  return Promise.all(
    answer.citations.map(async (id) => ((await (await fetch(`${service.url}/api/v1/signals/${id}`)).json()) as { signal: { entities: { retailers: string[] } } }).signal.entities.retailers),
  );
}

describe('a chain in a larger group', () => {
  it.each([
    ['How many stores did Star Bazaar open this year?', 'Star Bazaar'],
    ['What is Reliance Smart doing in Mumbai?', 'Reliance Smart'],
    ['Star Bazaar expansion plans', 'Star Bazaar'],
    ['Reliance Smart store openings', 'Reliance Smart'],
    // The group named beside its chain is a qualifier, not a question about its other brands.
    ['How is Star Bazaar (Trent) growing?', 'Star Bazaar'],
    ['Reliance Smart (Reliance Retail) store openings', 'Reliance Smart'],
  ])('%s cites only signals about %s', async (question, chain) => {
    for (const retailers of await citedRetailers(question)) expect(retailers, `a citation about ${retailers.join(', ')}`).toContain(chain);
  });
});
