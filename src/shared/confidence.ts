/**
 * Confidence arrives in whatever shape a service chose (the interface leaves it open): [0,1],
 * 0–100, a numeric string ("0.72", "72%"), a word (low … very high), or an object carrying one
 * of those (`{score}`, `{value}`, `{level}`). The app works in [0,1]. Anything else (null,
 * 250, "certainly") gives null, shown as "confidence unknown": a bad value never breaks an answer.
 */
const WORDS: Record<string, number> = {
  'very low': 0.1,
  low: 0.25,
  moderate: 0.55,
  medium: 0.55,
  high: 0.85,
  'very high': 0.95,
};

export function normalizeConfidence(value: unknown, depth = 0): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (value < 0) return null;
    if (value <= 1) return value;
    if (value <= 100) return value / 100;
    return null;
  }
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase().replace(/[_-]+/g, ' ').replace(/\s+/g, ' ');
    const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(text);
    if (percent) return normalizeConfidence(Number(percent[1]) / 100, depth);
    if (/^\d+(?:\.\d+)?$/.test(text)) return normalizeConfidence(Number(text), depth);
    return WORDS[text] ?? null;
  }
  if (value && typeof value === 'object' && !Array.isArray(value) && depth < 2) {
    const record = value as Record<string, unknown>;
    for (const key of ['score', 'value', 'confidence', 'level', 'label']) {
      if (key in record) {
        const found = normalizeConfidence(record[key], depth + 1);
        if (found !== null) return found;
      }
    }
  }
  return null;
}

export function confidenceLabel(value: number): 'low' | 'medium' | 'high' {
  if (value >= 0.7) return 'high';
  if (value >= 0.4) return 'medium';
  return 'low';
}
