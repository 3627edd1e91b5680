/**
 * A research run's plan and retrieval: the topic read like a question (entities, period, city
 * tier), the sections a report needs with a sub-question each, and the signals each section's
 * sub-questions retrieve — only signals about what the topic names ("tier-2 cities" keeps
 * tier-1 cities out).
 */
import type { CorpusSignal } from '../world/signal-types';
import { cityTier, cityTierIn, type CityTier } from '../world/city-tiers';
import { matchesFrame } from '../answers/composer';
import { parseQuestion, type QuestionFrame } from '../answers/question';
import type { SearchHit } from '../retrieval/search-index';

export type SectionKey = 'overview' | 'key_figures' | 'timeline' | 'players' | 'disagreements' | 'risks_outlook';

export interface SectionPlan {
  key: SectionKey;
  title: string;
  /** What the section answers; each is searched on its own. */
  questions: string[];
}

export interface TopicFrame extends QuestionFrame {
  /** "Tier-2 cities": only signals about cities of this tier. */
  tier: CityTier | null;
}

export interface Preset {
  /** Signals kept for the report at most. */
  maxSignals: number;
  /** Hits read per sub-question. */
  perQuestion: number;
  /** Sub-questions per section (the deep preset asks more of each). */
  questionsPerSection: number;
}

export const PRESETS: Record<string, Preset> = {
  standard: { maxSignals: 16, perQuestion: 60, questionsPerSection: 1 },
  deep: { maxSignals: 28, perQuestion: 120, questionsPerSection: 3 },
};

export const presetOf = (name: string): Preset => PRESETS[name] ?? PRESETS.standard!;

/** The topic understood like a question, with the city tier it names. */
export function understandTopic(topic: string, now: number, isKnownWord?: (word: string) => boolean): TopicFrame {
  const frame = parseQuestion(topic, now, isKnownWord);
  // The question parser's tier words ("tier-2", "Tier II", "Y-class": the HRA classification).
  return { ...frame, tier: frame.cityTier ?? cityTierIn(topic) ?? null };
}

/** Whether a signal is about what the topic names: its entities and, with a tier, a city of that tier. */
export function aboutTopic(signal: CorpusSignal, frame: TopicFrame): boolean {
  if (!matchesFrame(signal, { ...frame, period: null })) return false;
  if (frame.tier === null || frame.cities.length > 0) return true;
  return signal.entities.cities.some((city) => cityTier(city) === frame.tier);
}

/** The words a sub-question adds to the topic's subject. */
const ANGLES: Record<SectionKey, { title: string; questions: string[] }> = {
  overview: { title: 'Overview', questions: ['', 'market overview', 'segment demand'] },
  key_figures: { title: 'Key figures', questions: ['revenue growth order value', 'store count dark stores', 'market share funding'] },
  timeline: { title: 'Key developments', questions: ['latest developments launches openings', 'expansion new stores', 'partnership acquisition'] },
  players: { title: 'Players involved', questions: ['retailers competitors', 'market share leader', 'new entrants'] },
  disagreements: { title: 'Where sources disagree', questions: ['reported figures', 'results revenue store count', 'growth year on year'] },
  risks_outlook: { title: 'Risks and outlook', questions: ['closures regulation price cuts', 'slowdown losses', 'outlook plans'] },
};

export const SECTION_ORDER: SectionKey[] = ['overview', 'key_figures', 'timeline', 'players', 'disagreements', 'risks_outlook'];

export function planReport(topic: string, preset: Preset): SectionPlan[] {
  return SECTION_ORDER.map((key) => ({
    key,
    title: ANGLES[key].title,
    questions: ANGLES[key].questions.slice(0, preset.questionsPerSection).map((angle) => `${topic} ${angle}`.trim()),
  }));
}

/** Runs a section's sub-questions; the topic's own hits come first (they rank the report's signals). */
export function retrieveSection(
  plan: SectionPlan,
  frame: TopicFrame,
  search: (query: string, limit: number) => SearchHit[],
  preset: Preset,
): SearchHit[] {
  const seen = new Set<string>();
  const hits: SearchHit[] = [];
  for (const question of plan.questions) {
    for (const hit of search(question, preset.perQuestion)) {
      if (seen.has(hit.signal.id) || !aboutTopic(hit.signal, frame)) continue;
      seen.add(hit.signal.id);
      hits.push(hit);
    }
  }
  return hits;
}
