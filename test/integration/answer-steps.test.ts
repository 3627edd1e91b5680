/**
 * A streaming answer is written in short steps, one per event-loop turn, its verification one
 * paragraph at a time (src/service/answer-turns.ts; issue 31, 200 streams' first byte). Nothing
 * about the answer may change with that: checked on the real service over HTTP.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGoldenSet } from '../../eval/golden';
import { startEvalService } from '../../eval/service';
import { paragraphs } from '../../src/service/answers/answer-pipeline';
import { ClaimVerifier, evidenceFrom, StreamingVerifier } from '../../src/service/answers/claim-verifier';
import { composeAnswer } from '../../src/service/answers/composer';
import { parseQuestion } from '../../src/service/answers/question';
import type { RunningService } from '../../src/service/server';
import { ask } from '../support/local-service';

let service: RunningService;
beforeAll(async () => {
  service = await startEvalService();
});
afterAll(async () => {
  await service.close();
});

/** What is random by design in a stream (session ids, slugs' tails, message ids), masked. */
const mask = (text: string): string =>
  text
    .replace(/ses_[0-9a-f]{16}/g, 'ses_*')
    .replace(/msg_[0-9a-f]{16}/g, 'msg_*')
    .replace(/("session_slug":"[^"]*-)[A-Za-z0-9]{12}"/g, '$1*"');

/** One streaming ask over node:http, a connection of its own (as the benchmark's burst). */
const streamAsk = (question: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify(ask(question, { stream: true }));
    const request = httpRequest(`${service.url}/api/v1/ask`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve(mask(text)));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });

const singleTurnQuestions = (): string[] => [...new Set(buildGoldenSet(service.store.truth).flatMap((item) => (item.turns.length === 1 ? item.turns : [])))];

describe('answers written in steps', () => {
  it('verifies an answer paragraph by paragraph exactly as in one piece, for every single-turn golden question', () => {
    const store = service.store;
    const questions = singleTurnQuestions();
    expect(questions.length).toBeGreaterThan(50);
    let multiParagraph = 0;
    for (const question of questions) {
      const now = Date.now();
      const frame = parseQuestion(question, now, (word) => store.index.hasTerm(word));
      const hits = store.index.search([...frame.retailers, ...frame.segments, ...frame.cities, ...frame.states, frame.question].join(' '), { now, limit: 150 });
      const answer = composeAnswer(question, hits, store.sourcesById, now, { frame, facts: store.facts, healthOf: store.healthOf });
      const verifier = (): StreamingVerifier => new StreamingVerifier(new ClaimVerifier(evidenceFrom(answer.citations, (id) => store.sourcesById.get(id)?.name), { contextDates: [now] }));
      const whole = verifier();
      const wholePieces = [...whole.push(answer.content), ...whole.end()];
      const stepped = verifier();
      const parts = paragraphs(answer.content);
      if (parts.length > 1) multiParagraph += 1;
      expect(parts.join('')).toBe(answer.content);
      const steppedPieces = [...parts.flatMap((part) => stepped.push(part)), ...stepped.end()];
      expect(steppedPieces).toEqual(wholePieces);
      expect(stepped.content()).toBe(whole.content());
    }
    // The check means something only if answers do have several paragraphs.
    expect(multiParagraph).toBeGreaterThan(questions.length / 2);
  });

  it('streams the same bytes for each question in a burst of 24 as for the question asked alone', async () => {
    const questions = singleTurnQuestions().slice(0, 24);
    const alone: string[] = [];
    for (const question of questions) alone.push(await streamAsk(question));
    // All at once: their steps interleave with each other's arrivals and first bytes.
    const together = await Promise.all(questions.map((question) => streamAsk(question)));
    for (const [i, text] of together.entries()) {
      expect(text).toContain('event: message_stop');
      expect(text).toBe(alone[i]);
    }
  });
});
