/**
 * Confidence arrives as [0,1], 0–100 or low/medium/high (DESIGN §3); the app works in [0,1].
 * Returns null for anything it cannot read, so a bad value never breaks an answer.
 */
export function normalizeConfidence(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (value < 0) return null;
    if (value <= 1) return value;
    if (value <= 100) return value / 100;
    return null;
  }
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (word === 'low') return 0.25;
    if (word === 'medium') return 0.55;
    if (word === 'high') return 0.85;
  }
  return null;
}

export function confidenceLabel(value: number): 'low' | 'medium' | 'high' {
  if (value >= 0.7) return 'high';
  if (value >= 0.4) return 'medium';
  return 'low';
}
