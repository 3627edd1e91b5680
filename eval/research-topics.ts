/** Research topics for the evaluation and the bench: retailers, segments in cities and city tiers. */
import { CITIES, RETAILERS, SEGMENTS } from '../src/service/corpus/vocabulary';

export function researchTopics(count = 36): string[] {
  const topics: string[] = ['Quick commerce in tier-2 cities', 'Fashion retail in tier-2 cities', 'Grocery in tier-1 cities'];
  const phrasing = ['store expansion', 'growth and market share', 'latest developments'];
  for (const [index, retailer] of RETAILERS.entries()) {
    if (topics.length >= count * 0.75) break;
    topics.push(`${retailer.name} ${phrasing[index % phrasing.length]}`);
  }
  for (const [index, segment] of SEGMENTS.entries()) {
    const city = CITIES[(index * 3) % CITIES.length]!.city;
    if (topics.length >= count) break;
    topics.push(`${segment[0]!.toUpperCase()}${segment.slice(1)} in ${city}`);
  }
  return topics.slice(0, count);
}
