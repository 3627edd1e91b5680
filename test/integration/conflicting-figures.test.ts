/**
 * Conflicting figures (issue 30): two sources that state different figures for the same
 * measure, entity, place and day are flagged in words and as the `conflicts` extension, never
 * shown side by side silently. Asked over real HTTP of the local service, extractive and with a
 * scripted model, on the sample corpus whose planted conflicts a fresh machine shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { differBeyondRounding, findConflicts } from '../../src/service/answers/conflicts';
import { isoDayIn, startOfDayIn } from '../../src/service/world/time-zone';
import type { Conflict } from '../../src/service/corpus/ground-truth';
import type { RunningService } from '../../src/service/server';
import { ask, parseSseText, postJson, startTestService, testStore } from '../support/local-service';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';

const NOW = Date.parse('2026-11-01T10:00:00Z');
let service: RunningService;
let modelService: RunningService;
let model: ScriptedModel;

interface Answer {
  content: string;
  citations: string[];
  confidence: number;
  conflicts: Array<{ measure: string; entity: string; place: string; as_of: string; figures: Array<{ value: number; signal_id: string; source_name: string }>; note: string }>;
  composer?: { backend: string };
}

beforeAll(async () => {
  service = await startTestService({ now: () => NOW });
  model = await startScriptedModel({ script: 'good' });
  modelService = await startTestService({ now: () => NOW, composer: { unsupportedClaims: 'remove', model: { url: model.url, model: 'scripted-7b', apiKey: 'sk-test-scripted-0123456789', timeoutMs: 2_000, silenceMs: 800 } } });
}, 60_000);
afterAll(async () => {
  await service?.close();
  await modelService?.close();
  await model?.close();
});

const planted = (kind: Conflict['kind']): Conflict[] => testStore().truth.conflicts.filter((conflict) => conflict.kind === kind);
const section = (content: string): string => content.split('### Sources disagree')[1]?.split('\n### ')[0] ?? '';

async function askJson(question: string, on = service): Promise<Answer> {
  const response = await postJson(`${on.url}/api/v1/ask`, ask(question));
  expect(response.status).toBe(200);
  return (await response.json()) as Answer;
}

describe('app ranks from two trackers for the same app and day', () => {
  it('the sample corpus has them: a second tracker ranks the app differently on its latest chart day', () => {
    const conflicts = planted('app_rank');
    expect(conflicts.map((conflict) => conflict.entity)).toEqual(expect.arrayContaining(['Zepto', 'Blinkit', 'Nykaa']));
    for (const conflict of conflicts) {
      const [a, b] = [testStore().getSignal(conflict.true_signal_id)!, testStore().getSignal(conflict.conflicting_signal_id)!];
      expect(a.published_at.slice(0, 10)).toBe(b.published_at.slice(0, 10));
      expect(a.source_id).not.toBe(b.source_id);
      expect(a.metrics.rank).not.toBe(b.metrics.rank);
    }
  });

  it('an answer leads with one rank, names the other in words under "Sources disagree", and lists the conflict as JSON', async () => {
    const conflict = planted('app_rank').find((entry) => entry.entity === 'Zepto')!;
    const answer = await askJson("What is Zepto's app rank now?");
    const lead = answer.content.split('\n### ')[0]!;
    expect(lead).toContain(`**Zepto's app ranked #${conflict.true_value}**`);
    expect(lead).toContain('ranks it differently that day');
    const flagged = section(answer.content);
    expect(flagged).toContain(`#${conflict.true_value} [${conflict.true_signal_id}]`);
    expect(flagged).toContain(`#${conflict.reported_value} [${conflict.conflicting_signal_id}]`);
    expect(flagged).toMatch(/differs between sources/);
    const listed = answer.conflicts.find((entry) => entry.measure === 'app_rank' && entry.entity === 'Zepto')!;
    expect(listed).toMatchObject({ place: 'India', as_of: testStore().getSignal(conflict.true_signal_id)!.published_at.slice(0, 10) });
    expect(listed.figures.map((figure) => [figure.value, figure.signal_id])).toEqual([
      [conflict.true_value, conflict.true_signal_id],
      [conflict.reported_value, conflict.conflicting_signal_id],
    ]);
    expect(flagged).toContain(listed.note);
  });

  it('streamed: the same note in the text and one clarity.conflicts_flagged frame before message_stop', async () => {
    const conflict = planted('app_rank').find((entry) => entry.entity === 'Blinkit')!;
    const response = await postJson(`${service.url}/api/v1/ask`, ask('Where does Blinkit rank in the app charts?', { stream: true }));
    const frames = parseSseText(await response.text());
    const names = frames.map((frame) => frame.event);
    const text = frames.filter((frame) => frame.event === 'content_block_delta').map((frame) => (frame.data as { delta: { text: string } }).delta.text).join('');
    expect(section(text)).toContain(`[${conflict.conflicting_signal_id}]`);
    const flaggedAt = names.indexOf('clarity.conflicts_flagged');
    expect(flaggedAt).toBeGreaterThan(names.indexOf('content_block_stop'));
    expect(flaggedAt).toBeLessThan(names.indexOf('message_stop'));
    const { conflicts } = frames[flaggedAt]!.data as { conflicts: Answer['conflicts'] };
    expect(conflicts.find((entry) => entry.entity === 'Blinkit')!.figures.map((figure) => figure.signal_id)).toEqual([conflict.true_signal_id, conflict.conflicting_signal_id]);
  });

  it('a model that puts both ranks side by side without a word gets the note appended after verification', async () => {
    const question = "What is Nykaa's app rank today?";
    // The extractive answer's picks lead the model's evidence: its first conflict's two reports.
    const [lead, other] = (await askJson(question)).conflicts[0]!.figures;
    const answer = await askJson(question, modelService);
    expect(answer.composer?.backend).toBe('model');
    // The scripted model restates the first evidence signals: both trackers' reports, silently.
    const [body, ...flags] = answer.content.split('### Sources disagree');
    expect(body).toContain(`#${lead!.value} among shopping apps in India`);
    expect(body).toContain(`[${lead!.signal_id}]`);
    expect(body).toContain(`[${other!.signal_id}]`);
    expect(flags).toHaveLength(1);
    expect(section(answer.content)).toContain(`#${other!.value} [${other!.signal_id}]`);
    expect(answer.conflicts.find((entry) => entry.entity === 'Nykaa')!.figures.map((figure) => figure.signal_id)).toEqual(expect.arrayContaining([lead!.signal_id, other!.signal_id]));
  });
});

describe('a store count reported differently', () => {
  it('is flagged in words and as JSON, the company or official figure first', async () => {
    const conflict = planted('store_count')[0]!;
    const answer = await askJson(`How many stores does ${conflict.entity} operate now?`);
    expect(section(answer.content)).toContain(`[${conflict.conflicting_signal_id}]`);
    const listed = answer.conflicts.find((entry) => entry.measure === 'store_count' && entry.entity === conflict.entity)!;
    expect(listed.figures[0]).toMatchObject({ value: conflict.true_value, signal_id: conflict.true_signal_id });
    expect(listed.figures.map((figure) => figure.value)).toContain(conflict.reported_value);
  });

  it('an answer without conflicting figures says nothing of the kind and lists none', async () => {
    const answer = await askJson('How many stores has DMart opened this year, and where?');
    expect(answer.content).not.toContain('### Sources disagree');
    expect(answer.conflicts).toEqual([]);
  });
});

describe('the rule', () => {
  it('differs beyond rounding only when the figures disagree at the coarser precision', () => {
    expect(differBeyondRounding(1234, 1234.4)).toBe(false);
    expect(differBeyondRounding(12.3, 12.34)).toBe(false);
    expect(differBeyondRounding(12.3, 12.4)).toBe(true);
    expect(differBeyondRounding(7, 9)).toBe(true);
  });

  it('one tracker updating its chart within a day is not a conflict; another tracker the same day is (the day in UTC)', () => {
    const store = testStore();
    const base = store.getSignal(planted('app_rank')[0]!.true_signal_id)!;
    const later = { ...base, id: 'sig_00000000000000a1', metrics: { rank: base.metrics.rank! + 5 }, published_at: base.published_at.replace(/T.*/, 'T23:00:00.000Z') };
    expect(findConflicts([base, later], store.sourcesById, 'UTC')).toEqual([]);
    const other = [...store.sourcesById.values()].find((source) => source.kind === 'app_store_rank' && source.id !== base.source_id)!;
    const nextDay = { ...later, source_id: other.id, published_at: new Date(Date.parse(base.published_at.slice(0, 10)) + 86_400_000 + 3_600_000).toISOString() };
    expect(findConflicts([base, nextDay], store.sourcesById, 'UTC')).toEqual([]);
    expect(findConflicts([base, { ...later, source_id: other.id }], store.sourcesById, 'UTC')).toHaveLength(1);
  });

  it("the same in the analyst's day (India by default): the day's last half hour is that day, the next morning is not", () => {
    const store = testStore();
    const base = store.getSignal(planted('app_rank')[0]!.true_signal_id)!;
    const [year, month, date] = isoDayIn(base.published_at, 'Asia/Kolkata').split('-').map(Number) as [number, number, number];
    const nextIndianDay = startOfDayIn(year, month - 1, date + 1, 'Asia/Kolkata');
    const later = { ...base, id: 'sig_00000000000000a1', metrics: { rank: base.metrics.rank! + 5 }, published_at: new Date(nextIndianDay - 1_800_000).toISOString() };
    expect(findConflicts([base, later], store.sourcesById)).toEqual([]);
    const other = [...store.sourcesById.values()].find((source) => source.kind === 'app_store_rank' && source.id !== base.source_id)!;
    const nextDay = { ...later, source_id: other.id, published_at: new Date(nextIndianDay + 3_600_000).toISOString() };
    expect(findConflicts([base, nextDay], store.sourcesById)).toEqual([]);
    expect(findConflicts([base, { ...later, source_id: other.id }], store.sourcesById)).toHaveLength(1);
  });
});
