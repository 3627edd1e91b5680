/**
 * Runs golden questions against a running Retail Signal service over HTTP and scores the
 * answers: entity accuracy, figure accuracy, citation support, follow-up resolution,
 * conflict flagging, unknown-entity honesty and calibration (expected calibration error).
 */
import type { CorpusSignal } from '../src/service/corpus/generator';
import { RETAILERS } from '../src/service/corpus/vocabulary';
import type { GoldenItem } from './golden';

export interface ItemResult {
  id: string;
  category: GoldenItem['category'];
  question: string;
  confidence: number;
  citations: number;
  entityOk: boolean | null;
  figuresOk: boolean | null;
  conflictOk: boolean | null;
  unknownOk: boolean | null;
  /** Cited claims whose figures the cited signal does not state. */
  unsupported: string[];
  claims: number;
  /** Whether the answer gives correct information for the question (calibration's target). */
  correct: boolean;
  problems: string[];
  /** The service's claim verification of this answer (extension; absent from services without it). */
  verification?: { sentences: number; supported: number; removed: Array<{ text: string; reason: string }> };
}

export interface Metric {
  value: number;
  target: number;
  /** "≥" for rates, "≤" for the calibration error. */
  direction: '>=' | '<=';
  n: number;
}

export interface EvalReport {
  generated_at: string;
  anchor: string;
  questions: number;
  metrics: Record<'entity_accuracy' | 'figure_accuracy' | 'citation_support' | 'followup_resolution' | 'conflict_flagging' | 'unknown_honesty' | 'calibration_ece', Metric>;
  passed: boolean;
  items: ItemResult[];
}

export const TARGETS = {
  entity_accuracy: 0.98,
  figure_accuracy: 0.95,
  citation_support: 1,
  followup_resolution: 0.9,
  conflict_flagging: 0.95,
  unknown_honesty: 1,
  calibration_ece: 0.1,
} as const;

interface AskResponse {
  content: string;
  citations: string[];
  confidence: number;
  session_id: string;
  verification?: ItemResult['verification'];
  /** Extension (issue 30): the conflicting figures the answer flags; absent from services without it. */
  conflicts?: Array<{ figures: Array<{ signal_id: string }> }>;
}

async function ask(baseUrl: string, content: string, sessionId: string | undefined): Promise<AskResponse> {
  const response = await fetch(`${baseUrl}/api/v1/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content }], ...(sessionId ? { session_id: sessionId } : {}) }),
  });
  if (!response.ok) throw new Error(`ask failed with ${response.status}: ${await response.text()}`);
  return (await response.json()) as AskResponse;
}

const MONTHS = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)[a-z]*';
/** Text that holds digits but no figure: dates, periods, names with digits, markers. */
function stripNonFigures(text: string): string {
  return text
    .replace(/\[sig_[0-9a-f]{16}\]/g, ' ')
    .replace(new RegExp(`\\b\\d{1,2} ${MONTHS}(?: \\d{4})?\\b`, 'g'), ' ')
    .replace(/\bQ[1-4] (?:of )?FY\s?\d{2,4}(?:-\d{2})?\b/g, ' ')
    .replace(/\bFY\s?\d{2,4}(?:-\d{2})?\b/g, ' ')
    .replace(/\b(?:Diwali|festive season|in|since) (?:19|20)\d{2}\b/gi, ' ')
    .replace(/\b(?:19|20)\d{2}\b(?= so far)/g, ' ')
    // Names with digits (Inc42, Tata 1mg) and tiers.
    .replace(/\b[A-Za-z]+\d+[A-Za-z\d]*\b|\b\d+[A-Za-z]+\b|\btier-\d\b/g, ' ');
}

export function numbersIn(text: string): number[] {
  return [...stripNonFigures(text).matchAll(/\d[\d,]*(?:\.\d+)?/g)].map((match) => Math.abs(Number(match[0].replace(/,/g, ''))));
}

const close = (a: number, b: number): boolean => Math.abs(Math.abs(a) - Math.abs(b)) < 0.051;

/** The direct answer: everything before the first "###" section. */
const directPart = (content: string): string => content.split(/\n### /)[0] ?? content;

/**
 * Citation support: every run of text followed by markers must state only figures that one of
 * those cited signals contains. Text after a line's last marker is computed (a sum, a count)
 * from the cited figures before it and is scored by figure accuracy instead.
 */
export function checkCitations(content: string, lookup: (id: string) => CorpusSignal | undefined): { claims: number; unsupported: string[] } {
  let claims = 0;
  const unsupported: string[] = [];
  for (const line of content.split('\n')) {
    const pattern = /((?:\s*\[sig_[0-9a-f]{16}\])+)/g;
    let last = 0;
    for (const match of line.matchAll(pattern)) {
      const claim = line.slice(last, match.index);
      last = match.index! + match[0].length;
      const ids = [...match[0].matchAll(/sig_[0-9a-f]{16}/g)].map((m) => m[0]);
      const signals = ids.map(lookup);
      claims += 1;
      if (signals.some((signal) => !signal)) {
        unsupported.push(`unknown citation in: ${line.slice(0, 120)}`);
        continue;
      }
      const stated = new Set(
        signals.flatMap((signal) => [...numbersIn(`${signal!.title} ${signal!.body}`), ...Object.values(signal!.metrics).map(Math.abs)]).map((value) => value.toFixed(2)),
      );
      const missing = numbersIn(claim).filter((value) => !stated.has(value.toFixed(2)));
      if (missing.length > 0) unsupported.push(`${missing.join(', ')} not in ${ids.join(' ')}: "${claim.trim().slice(0, 140)}"`);
    }
  }
  return { claims, unsupported };
}

export async function runItem(baseUrl: string, item: GoldenItem, lookup: (id: string) => CorpusSignal | undefined): Promise<ItemResult> {
  let sessionId: string | undefined;
  let answer: AskResponse | null = null;
  for (const turn of item.turns) {
    answer = await ask(baseUrl, turn, sessionId);
    sessionId = answer.session_id;
  }
  const { content, citations, confidence } = answer!;
  const problems: string[] = [];
  const direct = directPart(content);
  const cited = citations.map(lookup).filter((signal): signal is CorpusSignal => signal !== undefined);
  const { expect } = item;

  let entityOk: boolean | null = null;
  if (expect.retailers || expect.city) {
    const names = expect.retailers ?? [expect.city!];
    const mentions = names.every((name) => direct.includes(name));
    const about = (signal: CorpusSignal): boolean =>
      expect.retailers ? expect.retailers.some((name) => signal.entities.retailers.includes(name)) : signal.entities.cities.includes(expect.city!);
    const offTopic = cited.filter((signal) => !about(signal));
    // A different retailer leading the answer is the failure the issue reported (V-Mart for D-Mart).
    const others = RETAILERS.map((retailer) => retailer.name).filter((name) => !names.includes(name) && new RegExp(`\\*\\*${escape(name)}\\b`).test(direct));
    entityOk = mentions && offTopic.length === 0 && others.length === 0 && cited.length > 0;
    if (!mentions) problems.push(`direct answer does not name ${names.join(', ')}`);
    if (offTopic.length > 0) problems.push(`${offTopic.length} citation(s) about something else: ${offTopic.slice(0, 2).map((s) => s.title).join(' | ')}`);
    if (others.length > 0) problems.push(`leads with ${others.join(', ')}`);
  }
  if (expect.notAbout) {
    const carried = expect.notAbout.filter((word) => (content.split('\n')[0] ?? '').includes(word) || direct.includes(`**${word}`));
    if (carried.length > 0) {
      entityOk = false;
      problems.push(`carried the previous subject: ${carried.join(', ')}`);
    } else entityOk ??= true;
  }

  // A known subject must not be mistaken for an unknown name ("What's" in "What's DMart's…").
  if (!expect.unknown) {
    const spurious = /no signals about ([^.\n]+)\./i.exec(content);
    if (spurious) {
      entityOk = false;
      problems.push(`took "${spurious[1]}" for an unknown name`);
    }
  }

  let figuresOk: boolean | null = null;
  if (expect.figures) {
    const stated = numbersIn(direct);
    const missing = expect.figures.filter((figure) => !stated.some((value) => close(value, figure)));
    figuresOk = missing.length === 0;
    if (!figuresOk) problems.push(`figures missing from the direct answer: ${missing.join(', ')}`);
  }

  let conflictOk: boolean | null = null;
  if (expect.conflict) {
    const section = content.split('### Sources disagree')[1]?.split('\n### ')[0] ?? '';
    const values = numbersIn(section);
    conflictOk = expect.conflict.values.every((value) => values.some((stated) => close(stated, value))) && expect.conflict.signals.every((id) => section.includes(id));
    if (!conflictOk) problems.push('conflict not flagged with both figures and both citations');
    // A service with the `conflicts` extension must list the same pair machine-readably.
    const listed = answer!.conflicts;
    if (listed && !listed.some((conflict) => expect.conflict!.signals.every((id) => conflict.figures.some((figure) => figure.signal_id === id)))) {
      conflictOk = false;
      problems.push('conflict missing from the `conflicts` extension field');
    }
  }

  let unknownOk: boolean | null = null;
  if (expect.unknown) {
    unknownOk = citations.length === 0 && content.toLowerCase().includes(`no signals about ${expect.unknown.toLowerCase()}`) && confidence <= 0.2;
    if (!unknownOk) problems.push(`not honest about ${expect.unknown}: ${citations.length} citations, confidence ${confidence}`);
  }

  const { claims, unsupported } = checkCitations(content, lookup);
  for (const claim of unsupported.slice(0, 3)) problems.push(`unsupported: ${claim}`);
  // An honest "no signals" is right but answers nothing: it counts as not answered for calibration.
  const correct = unknownOk === null && entityOk !== false && figuresOk !== false && conflictOk !== false && unsupported.length === 0 && citations.length > 0;
  return {
    id: item.id,
    category: item.category,
    question: item.turns.join(' → '),
    confidence,
    citations: citations.length,
    entityOk,
    figuresOk,
    conflictOk,
    unknownOk,
    unsupported,
    claims,
    correct,
    problems,
    ...(answer!.verification ? { verification: answer!.verification } : {}),
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Expected calibration error over ten equal-width confidence bins. */
export function expectedCalibrationError(results: Array<{ confidence: number; correct: boolean }>): number {
  const bins = Array.from({ length: 10 }, () => ({ n: 0, confidence: 0, correct: 0 }));
  for (const result of results) {
    const bin = bins[Math.min(9, Math.floor(result.confidence * 10))]!;
    bin.n += 1;
    bin.confidence += result.confidence;
    bin.correct += result.correct ? 1 : 0;
  }
  return bins.reduce((sum, bin) => (bin.n === 0 ? sum : sum + (bin.n / results.length) * Math.abs(bin.correct / bin.n - bin.confidence / bin.n)), 0);
}

export async function evaluate(baseUrl: string, items: GoldenItem[], lookup: (id: string) => CorpusSignal | undefined, anchor: string): Promise<EvalReport> {
  const results: ItemResult[] = [];
  for (const item of items) results.push(await runItem(baseUrl, item, lookup));
  const rate = (values: Array<boolean | null>): { value: number; n: number } => {
    const scored = values.filter((value): value is boolean => value !== null);
    return { value: scored.length === 0 ? 1 : scored.filter(Boolean).length / scored.length, n: scored.length };
  };
  const claims = results.reduce((sum, result) => sum + result.claims, 0);
  const unsupported = results.reduce((sum, result) => sum + result.unsupported.length, 0);
  const followups = results.filter((result) => result.category === 'followup');
  const metrics: EvalReport['metrics'] = {
    entity_accuracy: { ...rate(results.map((r) => r.entityOk)), target: TARGETS.entity_accuracy, direction: '>=' },
    figure_accuracy: { ...rate(results.map((r) => r.figuresOk)), target: TARGETS.figure_accuracy, direction: '>=' },
    citation_support: { value: claims === 0 ? 1 : (claims - unsupported) / claims, n: claims, target: TARGETS.citation_support, direction: '>=' },
    followup_resolution: { ...rate(followups.map((r) => r.correct)), target: TARGETS.followup_resolution, direction: '>=' },
    conflict_flagging: { ...rate(results.map((r) => r.conflictOk)), target: TARGETS.conflict_flagging, direction: '>=' },
    unknown_honesty: { ...rate(results.map((r) => r.unknownOk)), target: TARGETS.unknown_honesty, direction: '>=' },
    calibration_ece: { value: expectedCalibrationError(results), n: results.length, target: TARGETS.calibration_ece, direction: '<=' },
  };
  const passed = Object.values(metrics).every((metric) => (metric.direction === '>=' ? metric.value >= metric.target - 1e-9 : metric.value <= metric.target + 1e-9));
  return { generated_at: new Date().toISOString(), anchor, questions: results.length, metrics, passed, items: results };
}

const LABELS: Record<keyof EvalReport['metrics'], string> = {
  entity_accuracy: 'Entity accuracy',
  figure_accuracy: 'Figure accuracy',
  citation_support: 'Citation support',
  followup_resolution: 'Follow-up resolution',
  conflict_flagging: 'Conflicts flagged',
  unknown_honesty: 'Unknown entities answered honestly',
  calibration_ece: 'Calibration error (ECE)',
};

export function markdownTable(report: EvalReport): string {
  const lines = ['| Metric | Result | Target | n | |', '|---|---:|---:|---:|---|'];
  for (const [key, metric] of Object.entries(report.metrics) as Array<[keyof EvalReport['metrics'], Metric]>) {
    const format = (value: number): string => (key === 'calibration_ece' ? value.toFixed(3) : `${(value * 100).toFixed(1)}%`);
    const ok = metric.direction === '>=' ? metric.value >= metric.target - 1e-9 : metric.value <= metric.target + 1e-9;
    lines.push(`| ${LABELS[key]} | ${format(metric.value)} | ${metric.direction === '>=' ? '≥' : '≤'} ${format(metric.target)} | ${metric.n} | ${ok ? 'pass' : 'FAIL'} |`);
  }
  return lines.join('\n');
}
