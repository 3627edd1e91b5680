/**
 * Entities learned from the feed (issue 43, item 1; decision 0035). Each fetched item's
 * candidate names (entity-candidates.ts) are counted; a candidate the item marks as a name
 * becomes an entity at once, any other once it recurs in a second item. A learned entity keeps
 * its kind, the aliases items gave, and the segments and cities it co-occurs with. Every signal
 * whose text names it (or an alias) carries it in `entities.retailers`, the list retrieval,
 * Discover's `entity=` and follows read, so it works where a built-in retailer does.
 * The gazetteer is the seed and wins: a name it knows is never learned.
 *
 * The learner is in memory and synchronous (it runs in the feed's signal-making path); what
 * changed is written to the database by the caller (`takeChanged`) and read back by other
 * processes of a team server (`merge`).
 */
import { EntityRegistry, worldEntities } from '../world/entity-registry';
import { SEGMENTS, type Segment } from '../world/gazetteer';
import { findCandidates, type LearnedKind } from './entity-candidates';
import { findEntities } from './gazetteer';

export interface LearnedEntity {
  name: string;
  kind: LearnedKind;
  aliases: string[];
  /** Co-occurrence counts: segment → signals, city → signals. */
  segments: Record<string, number>;
  cities: Record<string, number>;
  /** Signals that name it. */
  signals: number;
  first_seen_at: string;
  updated_at: string;
}

/** What the learner reads of a signal. */
export interface LearnableSignal {
  id: string;
  title: string;
  summary: string;
  body: string;
  entities: { retailers: string[]; segments: string[]; cities: string[]; states: string[] };
}

/** Lower case, letters and digits only: the key names and aliases are compared by. */
export const entityKey = (text: string): string => text.toLowerCase().normalize('NFKD').replace(/[^\p{L}\p{N}&]+/gu, '');

/** A word of a name: letters, digits and "&" ("Marks & Spencer" is three). */
const WORD = /[\p{L}\p{N}&]+/gu;

/** How many items an unmarked candidate must appear in before it is learned. */
const RECUR = 2;
/** Unmarked candidates remembered while they wait to recur (oldest forgotten first). */
const PENDING_KEPT = 20_000;
const KIND_RANK: Record<LearnedKind, number> = { organisation: 0, brand: 1, retailer: 2, person: 3 };

export class EntityLearner {
  private readonly entities = new Map<string, LearnedEntity>();
  /** Name or alias key → the entity's key. */
  private readonly keys = new Map<string, string>();
  /** Signals each entity was counted in (so an updated item is not counted twice). */
  private readonly counted = new Map<string, Set<string>>();
  private readonly pending = new Map<string, { name: string; kind: LearnedKind; aliases: string[]; signals: Set<string> }>();
  private readonly changed = new Set<string>();
  /** Keys whose name, aliases, kind or places changed since the registry last heard (publish). */
  private readonly unpublished = new Set<string>();
  /** Learned names and aliases by their lower-case words, the longest name's word count, and every word of them. */
  private matcher: { byWords: Map<string, string>; longest: number; words: Set<string> } | null = null;

  /** The gazetteer alone, for "the gazetteer wins" checks (the world registry holds learned names too). */
  private readonly seed = new EntityRegistry();

  /** `registry`: the service's world, where what is learned becomes an entity (world/entity-registry.ts). */
  constructor(private readonly now: () => number = Date.now, private readonly registry: EntityRegistry = worldEntities) {}

  /** Every learned entity. */
  all(): LearnedEntity[] {
    return [...this.entities.values()];
  }

  /** The learned entity a name or alias stands for. */
  get(nameOrAlias: string): LearnedEntity | undefined {
    const key = this.keys.get(entityKey(nameOrAlias));
    return key === undefined ? undefined : this.entities.get(key);
  }

  /**
   * Reads one signal: learns the names it marks or that recur, then returns the learned
   * entities it names (canonical names), those learned just now, and the earlier signals a
   * name learned now was waiting in (the caller gives them the name too).
   */
  learn(signal: LearnableSignal): { names: string[]; learned: LearnedEntity[]; earlier: string[] } {
    const learned: LearnedEntity[] = [];
    const earlier = new Set<string>();
    const at = new Date(this.now()).toISOString();
    this.matcher ??= this.buildMatcher();
    const { words } = this.matcher;
    for (const candidate of findCandidates(signal.title, signal.body || signal.summary, (word) => words.has(word))) {
      const key = entityKey(candidate.name);
      const known = this.keys.get(key) ?? candidate.aliases.map((alias) => this.keys.get(entityKey(alias))).find((found) => found !== undefined);
      if (known !== undefined) {
        const entity = this.entities.get(known)!;
        if (this.addAliases(entity, candidate.name === entity.name ? candidate.aliases : [candidate.name, ...candidate.aliases]) || KIND_RANK[candidate.kind] > KIND_RANK[entity.kind]) {
          if (KIND_RANK[candidate.kind] > KIND_RANK[entity.kind]) entity.kind = candidate.kind;
          entity.updated_at = at;
          this.changed.add(known);
          this.unpublished.add(known);
        }
        continue;
      }
      if (!candidate.marked) {
        const waiting = this.pending.get(key) ?? { name: candidate.name, kind: candidate.kind, aliases: [], signals: new Set<string>() };
        waiting.signals.add(signal.id);
        if (KIND_RANK[candidate.kind] > KIND_RANK[waiting.kind]) waiting.kind = candidate.kind;
        this.pending.delete(key);
        if (waiting.signals.size < RECUR) {
          this.pending.set(key, waiting);
          if (this.pending.size > PENDING_KEPT) this.pending.delete(this.pending.keys().next().value!);
          continue;
        }
        // It recurs: learned now, and the signals it waited in name it too.
        for (const id of waiting.signals) if (id !== signal.id) earlier.add(id);
      }
      const waited = this.pending.get(key);
      this.pending.delete(key);
      for (const id of waited?.signals ?? []) if (id !== signal.id) earlier.add(id);
      const entity: LearnedEntity = { name: candidate.name, kind: candidate.kind, aliases: [], segments: {}, cities: {}, signals: 0, first_seen_at: at, updated_at: at };
      this.entities.set(key, entity);
      this.keys.set(key, key);
      this.index(entity.name, entity.name);
      this.addAliases(entity, [...candidate.aliases, ...(waited?.aliases ?? [])]);
      this.changed.add(key);
      this.unpublished.add(key);
      learned.push(entity);
    }
    const names = this.namesIn(`${signal.title}\n${signal.summary}\n${signal.body}`);
    for (const name of names) this.count(name, signal, at);
    this.publish();
    return { names, learned, earlier: [...earlier] };
  }

  /**
   * The learned entities a text names, by name or alias (canonical names): its words are looked
   * up a run at a time (longest first) in a map of names, not matched by one big pattern, so the
   * cost stays flat as thousands of names are learned.
   */
  namesIn(text: string): string[] {
    if (this.entities.size === 0) return [];
    this.matcher ??= this.buildMatcher();
    const { byWords, longest } = this.matcher;
    const words = text.match(WORD) ?? [];
    const lower = words.map((word) => word.toLowerCase());
    const names = new Set<string>();
    for (let i = 0; i < words.length; i += 1) {
      // Names are written capitalised in items: "snitch" the word is not Snitch the brand.
      if (!/^[\p{Lu}\p{N}]/u.test(words[i]!)) continue;
      for (let size = Math.min(longest, words.length - i); size >= 1; size -= 1) {
        const name = byWords.get(size === 1 ? lower[i]! : lower.slice(i, i + size).join(' '));
        if (name === undefined) continue;
        names.add(name);
        i += size - 1;
        break;
      }
    }
    return [...names];
  }

  /** Entities changed since the last call (the caller writes them to the database). */
  takeChanged(): LearnedEntity[] {
    const changed = [...this.changed].map((key) => this.entities.get(key)).filter((entity): entity is LearnedEntity => entity !== undefined);
    this.changed.clear();
    return changed.map((entity) => ({ ...entity, aliases: [...entity.aliases], segments: { ...entity.segments }, cities: { ...entity.cities } }));
  }

  /** Entities whose write failed: written with the next ones. */
  markChanged(entities: LearnedEntity[]): void {
    for (const entity of entities) this.changed.add(entityKey(entity.name));
  }

  /** Entities read from the database (at start, or written by another process): theirs wins where newer. */
  merge(rows: LearnedEntity[]): LearnedEntity[] {
    const added: LearnedEntity[] = [];
    for (const row of rows) {
      const key = this.keys.get(entityKey(row.name)) ?? entityKey(row.name);
      const known = this.entities.get(key);
      if (known && known.updated_at >= row.updated_at) {
        this.addAliases(known, row.aliases);
        continue;
      }
      const entity: LearnedEntity = { ...row, aliases: [], segments: { ...row.segments }, cities: { ...row.cities } };
      this.entities.set(key, entity);
      this.keys.set(key, key);
      this.addAliases(entity, [...(known?.aliases ?? []), ...row.aliases]);
      this.pending.delete(key);
      this.matcher = null;
      if (!known) added.push(entity);
    }
    const merged = rows.map((row) => this.entities.get(this.keys.get(entityKey(row.name)) ?? '')).filter((entity): entity is LearnedEntity => entity !== undefined);
    this.publish(merged);
    return added;
  }

  /**
   * Hands what changed to the world's registry, so questions, item tagging and follows know it
   * at once (the registry merges aliases and cities; the gazetteer wins there too).
   */
  private publish(entities: LearnedEntity[] = [...this.unpublished].map((key) => this.entities.get(key)!).filter(Boolean)): void {
    this.unpublished.clear();
    if (entities.length === 0) return;
    this.registry.upsert(
      entities.map((entity) => {
        const segment = topOf(entity.segments, 1)[0];
        return { kind: entity.kind, name: entity.name, aliases: entity.aliases, cities: topOf(entity.cities), ...(segment && (SEGMENTS as readonly string[]).includes(segment) ? { segment: segment as Segment } : {}) };
      }),
    );
  }

  private count(name: string, signal: LearnableSignal, at: string): void {
    const key = entityKey(name);
    const entity = this.entities.get(key);
    if (!entity) return;
    const seen = this.counted.get(key) ?? new Set<string>();
    this.counted.set(key, seen);
    if (seen.has(signal.id)) return;
    seen.add(signal.id);
    entity.signals += 1;
    // A segment or city seen with it for the first time changes what the registry holds.
    for (const segment of signal.entities.segments) {
      if (entity.segments[segment] === undefined) this.unpublished.add(key);
      entity.segments[segment] = (entity.segments[segment] ?? 0) + 1;
    }
    for (const city of signal.entities.cities) {
      if (entity.cities[city] === undefined) this.unpublished.add(key);
      entity.cities[city] = (entity.cities[city] ?? 0) + 1;
    }
    entity.updated_at = at;
    this.changed.add(key);
  }

  /** Adds aliases not already a name of this or another entity, nor one the gazetteer knows. */
  private addAliases(entity: LearnedEntity, aliases: string[]): boolean {
    let added = false;
    const own = entityKey(entity.name);
    for (const alias of aliases) {
      const key = entityKey(alias);
      if (key.length < 2 || key === own || entity.aliases.some((known) => entityKey(known) === key)) continue;
      if (this.keys.has(key) && this.keys.get(key) !== own) continue;
      const gazetteer = findEntities(alias, this.seed);
      if (gazetteer.retailers.length + gazetteer.cities.length + gazetteer.states.length > 0) continue;
      entity.aliases.push(alias);
      this.keys.set(key, own);
      added = true;
      this.index(alias, entity.name);
    }
    return added;
  }

  /** Adds one name or alias to the word lookup, if it is built (else it is built whole on first use). */
  private index(written: string, name: string): void {
    if (!this.matcher) return;
    const words = (written.match(WORD) ?? []).map((word) => word.toLowerCase());
    if (words.length === 0) return;
    this.matcher.longest = Math.max(this.matcher.longest, words.length);
    for (const word of words) this.matcher.words.add(word);
    const key = words.join(' ');
    if (!this.matcher.byWords.has(key)) this.matcher.byWords.set(key, name);
  }

  private buildMatcher(): NonNullable<EntityLearner['matcher']> {
    const byWords = new Map<string, string>();
    const known = new Set<string>();
    let longest = 1;
    for (const entity of this.entities.values()) {
      for (const written of [entity.name, ...entity.aliases]) {
        const words = (written.match(WORD) ?? []).map((word) => word.toLowerCase());
        if (words.length === 0) continue;
        longest = Math.max(longest, words.length);
        for (const word of words) known.add(word);
        const key = words.join(' ');
        if (!byWords.has(key)) byWords.set(key, entity.name);
      }
    }
    return { byWords, longest, words: known };
  }
}

/** The segments or cities an entity co-occurs with most, most frequent first. */
export function topOf(counts: Record<string, number>, limit = 3): string[] {
  return Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, limit).map(([name]) => name);
}
