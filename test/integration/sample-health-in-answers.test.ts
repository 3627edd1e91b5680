/**
 * The fixed sample snapshot's sources were never fetched, so they have no health (the Sources
 * view and /sources/{id} say so): an answer must not call them "degraded or down" either. With
 * the sample replayed (simulated health, labelled), the same question may say it.
 */
import { describe, expect, it } from 'vitest';
import { ask, postJson, startTestService } from '../support/local-service';

const QUESTIONS = ['Which retailers are opening the most dark stores in Pune, and how fast?', 'How fast is quick commerce growing in Bengaluru?', 'What is DMart doing in Pune?', 'Store closures in Mumbai'];

async function answersOf(sample: 'snapshot' | 'replay'): Promise<string[]> {
  const service = await startTestService({ sample });
  try {
    const out: string[] = [];
    for (const question of QUESTIONS) {
      const response = await postJson(`${service.url}/api/v1/ask`, ask(question, { stream: false }));
      expect(response.status).toBe(200);
      out.push(((await response.json()) as { content: string }).content);
    }
    return out;
  } finally {
    await service.close();
  }
}

describe('source health in answers', () => {
  it('says nothing of the health of sources the fixed snapshot never fetched, and does when the sample is replayed', async () => {
    const replayed = await answersOf('replay');
    expect(replayed.some((content) => content.includes('degraded or down'))).toBe(true);
    const snapshot = await answersOf('snapshot');
    for (const content of snapshot) expect(content).not.toContain('degraded or down');
  }, 120_000);
});
