/** A small SVG line of a series (trend cards, source rows). */
export function Sparkline({ values, width = 90, height = 22, label }: { values: number[]; width?: number; height?: number; label: string }) {
  if (values.length < 2) return <svg width={width} height={height} aria-label={`${label}: not enough history yet`} role="img" />;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const span = max - min || 1;
  const points = values.map((value, i) => `${((i / (values.length - 1)) * (width - 2) + 1).toFixed(1)},${(height - 1 - ((value - min) / span) * (height - 2)).toFixed(1)}`).join(' ');
  return (
    <svg width={width} height={height} className="sparkline" role="img" aria-label={`${label}: from ${values[0]} to ${values[values.length - 1]}`}>
      <polyline points={points} fill="none" stroke="currentColor" strokeWidth="1.5" />
    </svg>
  );
}
