/**
 * The entities the service knows: a runtime registry seeded from the built-in gazetteer
 * (gazetteer.json) that grows as entities are learned from fetched items. Question parsing
 * (retrieval/entity-resolver.ts) and item tagging (feed/gazetteer.ts) read their lookups from it;
 * those lookups are derived data, rebuilt lazily the first time they are read after a change.
 *
 * Rules: the gazetteer wins. A learned entity whose name is already a built-in name (or alias,
 * parent, city, state, segment word) is not added; a learned alias that is a built-in name is
 * dropped. A second learning of the same name merges its aliases and cities into the first.
 */
import { CITIES, CITY_ALIASES, ORGANISATION_NAMES, RETAILER_ALIASES, RETAILERS, SEGMENT_ALIASES, STATES, type Segment } from './gazetteer';

export type EntityKind = 'retailer' | 'brand' | 'organisation' | 'person';
export type EntityOrigin = 'gazetteer' | 'learned';

export interface WorldEntity {
  kind: EntityKind;
  name: string;
  /** Other ways it is written ("VMM", "Avenue Supermarts"); the name itself is not repeated. */
  aliases: string[];
  segment?: Segment;
  /** The group a brand belongs to ("Trent" for Zudio). */
  parent?: string;
  /** Cities it is seen with. */
  cities: string[];
  origin: EntityOrigin;
}

/** What a learner hands in: origin is always 'learned', the rest optional. */
export interface LearnedEntity {
  kind: EntityKind;
  name: string;
  aliases?: string[];
  segment?: Segment;
  parent?: string;
  cities?: string[];
}

/** Lower case, letters/digits/& only: "D-Mart" → "dmart", "Spencer's" → "spencers". */
export const squash = (text: string): string => text.toLowerCase().replace(/[^a-z0-9&]+/g, '');

/** A word of a written name: letters and digits, with ' . & inside ("Spencer's", "M&S"). */
const NAME_TOKEN = /[\p{L}\p{N}](?:[\p{L}\p{N}'’.&]*[\p{L}\p{N}])?/gu;

export interface NameToken {
  /** The word in lower case. */
  lower: string;
  /** Whether it is written capitalised (or starts with a digit): learned names count only then. */
  capital: boolean;
  start: number;
  end: number;
  /** What separates it from the word before, spaces and hyphens left out ("&" in "Marks & Spencer"). */
  gap: string;
}

/** A text's words, for looking names up a run of words at a time (nameRunKey). */
export function nameTokens(text: string): NameToken[] {
  const tokens: NameToken[] = [];
  let last = 0;
  for (const match of text.matchAll(NAME_TOKEN)) {
    const start = match.index;
    const word = match[0];
    const lower = word.toLowerCase();
    // Capitalised: its first letter changes in lower case (a digit counts too), as \p{Lu} would say for names.
    const first = word.charCodeAt(0);
    const capital = word[0] !== lower[0] || (first >= 48 && first <= 57) || (first > 127 && /^\p{N}/u.test(word));
    // Most words are one space apart: no pattern needed for those.
    const between = start - last === 1 && text.charCodeAt(last) === 32 ? '' : text.slice(last, start).replace(/[\s-]+/g, '');
    tokens.push({ lower, capital, start, end: start + word.length, gap: between });
    last = start + word.length;
  }
  return tokens;
}

/** The key of tokens[from, to): "V-Mart" and "V Mart" share one, "Marks & Spencer" keeps its "&". */
export function nameRunKey(tokens: NameToken[], from: number, to: number): string {
  let key = tokens[from]!.lower;
  for (let i = from + 1; i < to; i += 1) key += `${tokens[i]!.gap} ${tokens[i]!.lower}`;
  return key;
}

/** Every key the gazetteer claims: names, aliases, parents, places and segment words. */
function gazetteerKeys(): Set<string> {
  const keys = new Set<string>();
  const add = (text: string): void => void keys.add(squash(text));
  for (const retailer of RETAILERS) {
    add(retailer.name);
    if (retailer.parent) add(retailer.parent);
  }
  for (const aliases of Object.values(RETAILER_ALIASES)) aliases.forEach(add);
  for (const { city, state } of CITIES) [city, state].forEach(add);
  for (const aliases of Object.values(CITY_ALIASES)) aliases.forEach(add);
  for (const [state, aliases] of Object.entries(STATES)) [state, ...aliases].forEach(add);
  for (const [segment, aliases] of Object.entries(SEGMENT_ALIASES)) [segment, ...aliases].forEach(add);
  ORGANISATION_NAMES.forEach(add);
  keys.delete('');
  return keys;
}

function builtInEntities(): WorldEntity[] {
  const retailers = RETAILERS.map((retailer): WorldEntity => ({
    kind: 'retailer',
    name: retailer.name,
    aliases: [...(RETAILER_ALIASES[retailer.name] ?? [])],
    segment: retailer.segment,
    ...(retailer.parent ? { parent: retailer.parent } : {}),
    cities: [],
    origin: 'gazetteer',
  }));
  const organisations = ORGANISATION_NAMES.map((name): WorldEntity => ({ kind: 'organisation', name, aliases: [], cities: [], origin: 'gazetteer' }));
  return [...retailers, ...organisations];
}

export class EntityRegistry {
  private readonly byName = new Map<string, WorldEntity>();
  /** Squashed name or alias → the entity's name: the first to claim a key keeps it. */
  private readonly owners = new Map<string, string>();
  private readonly reserved: Set<string>;
  private changes = 0;
  /**
   * Learned names and aliases (people's aside) by their run key (nameRunKey), kept as they are
   * learned: item tagging looks a text's words up here, so learning a name rebuilds nothing.
   */
  private readonly learnedRunsByKey = new Map<string, string>();
  private longestLearnedRun = 0;
  private readonly derivedCache = new Map<string, { at: number; value: unknown }>();

  constructor() {
    this.reserved = gazetteerKeys();
    for (const entity of builtInEntities()) {
      this.byName.set(entity.name, entity);
      for (const key of [entity.name, ...entity.aliases].map(squash)) if (!this.owners.has(key)) this.owners.set(key, entity.name);
    }
  }

  /** Bumped by every change: lookups derived from an older version are rebuilt. */
  get version(): number {
    return this.changes;
  }

  all(): WorldEntity[] {
    return [...this.byName.values()];
  }

  learned(): WorldEntity[] {
    return this.all().filter((entity) => entity.origin === 'learned');
  }

  /** The entity a name or alias stands for (any spelling squash() equates). */
  find(written: string): WorldEntity | undefined {
    const owner = this.owners.get(squash(written));
    return owner === undefined ? undefined : this.byName.get(owner);
  }

  /** Learned names by run key (nameRunKey) and the most words one has: kept as entities are learned. */
  learnedRuns(): { byKey: ReadonlyMap<string, string>; longest: number } {
    return { byKey: this.learnedRunsByKey, longest: this.longestLearnedRun };
  }

  /** Whether a name or alias is the gazetteer's (a learned entity can never take it). */
  isBuiltIn(written: string): boolean {
    return this.reserved.has(squash(written));
  }

  /**
   * Adds learned entities, or merges them into ones learned before. Returns the entities that
   * changed (empty when every one was known already or collided with the gazetteer).
   */
  upsert(entities: LearnedEntity[]): WorldEntity[] {
    const changed = new Set<WorldEntity>();
    for (const incoming of entities) {
      const name = incoming.name.trim();
      const key = squash(name);
      if (key.length < 2 || this.reserved.has(key)) continue;
      const ownerName = this.owners.get(key);
      let entity = ownerName === undefined ? undefined : this.byName.get(ownerName);
      if (entity && entity.origin !== 'learned') continue;
      if (!entity) {
        entity = { kind: incoming.kind, name, aliases: [], cities: [], origin: 'learned' };
        this.byName.set(name, entity);
        this.owners.set(key, name);
        this.indexRun(entity, name);
        changed.add(entity);
      }
      if (incoming.segment && !entity.segment) {
        entity.segment = incoming.segment;
        changed.add(entity);
      }
      if (incoming.parent && !entity.parent) {
        entity.parent = incoming.parent;
        changed.add(entity);
      }
      for (const alias of incoming.aliases ?? []) {
        const aliasKey = squash(alias);
        if (aliasKey.length < 2 || this.reserved.has(aliasKey) || this.owners.has(aliasKey)) continue;
        entity.aliases.push(alias.trim());
        this.owners.set(aliasKey, entity.name);
        this.indexRun(entity, alias.trim());
        changed.add(entity);
      }
      for (const city of incoming.cities ?? []) {
        if (entity.cities.includes(city)) continue;
        entity.cities.push(city);
        changed.add(entity);
      }
    }
    if (changed.size > 0) this.changes += 1;
    return [...changed];
  }

  /** A learned name or alias in the run lookup (people are not tagged on items; the first name to take a key keeps it). */
  private indexRun(entity: WorldEntity, written: string): void {
    if (entity.kind === 'person') return;
    const tokens = nameTokens(written);
    if (tokens.length === 0) return;
    const key = nameRunKey(tokens, 0, tokens.length);
    if (key.length < 2 || this.learnedRunsByKey.has(key)) return;
    this.learnedRunsByKey.set(key, entity.name);
    this.longestLearnedRun = Math.max(this.longestLearnedRun, tokens.length);
  }

  /** Same as upsert; the name learners read best. */
  add(entities: LearnedEntity[]): WorldEntity[] {
    return this.upsert(entities);
  }

  /**
   * A lookup built from the registry (a matcher, an alias map), kept until the registry
   * changes: `build` runs again on the first read after a change, never on every read.
   */
  derived<T>(key: string, build: (registry: EntityRegistry) => T): T {
    const cached = this.derivedCache.get(key);
    if (cached && cached.at === this.changes) return cached.value as T;
    const value = build(this);
    this.derivedCache.set(key, { at: this.changes, value });
    return value;
  }
}

/**
 * The process's registry. The service holds one world: questions, item tagging and follows all
 * read this instance, and learning writes to it.
 */
export const worldEntities = new EntityRegistry();
