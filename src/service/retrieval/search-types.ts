/** The search index's shapes and scoring constants, shared by the index (search-index.ts), its ranking (top-k.ts) and its snapshots. */
import type { CorpusSignal } from '../world/signal-types';
import type { Segment } from '../world/gazetteer';

export interface QueryEntities {
  retailers: string[];
  segments: Segment[];
  cities: string[];
  states: string[];
}

export interface SearchHit {
  signal: CorpusSignal;
  score: number;
  /** BM25 alone, before boosts: how well the words matched. */
  textScore: number;
  entityMatches: number;
}

export interface SearchOptions {
  limit?: number;
  now?: number;
  /** Only signals published at or before this time (ms). */
  until?: number;
}

export const ENTITY_KINDS = ['retailers', 'segments', 'cities', 'states'] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];
export const K1 = 1.2;
export const B = 0.75;
export const TITLE_WEIGHT = 3;
export const RECENCY_HALF_LIFE_DAYS = 45;
/** The recency factor of a signal published now (written as the factor is, so it rounds alike). */
export const MAX_RECENCY = 1 + 0.6 * 0.5 ** 0;

/**
 * The index as plain JSON (the corpus cache): each term's postings as the index keeps them,
 * [doc, tf, doc, tf, …], docs numbered in the order of the signals it was built from.
 */
export interface IndexSnapshot {
  lengths: number[];
  postings: Record<string, number[]>;
}

/**
 * An index snapshot in typed arrays (the binary snapshot, retrieval/packed-snapshot.ts):
 * `terms[i]`'s postings are the next `counts[i]` pairs [doc, tf] of `pairs`.
 */
export interface PackedIndex {
  lengths: Float64Array;
  terms: string[];
  counts: Uint32Array;
  pairs: Int32Array;
  /** Columns the index takes as they are, when the snapshot has them (files written before them do not). */
  columns?: PackedColumns;
}

/**
 * What the index otherwise works out per signal when it is added, stored beside the postings so
 * that appending 100,000 stored signals parses no date and walks no entity list (bench/notes.md,
 * issue 27 round 7): each document's publication time, and the documents naming each entity.
 */
export interface PackedColumns {
  /** Each document's `Date.parse(published_at)` (NaN kept). */
  published: Float64Array;
  /** The documents in the order of their ids (ascending by `<`): a signal is found by id with a binary search, no map of every id. */
  byId: Int32Array;
  /** Per entity kind (ENTITY_KINDS' order), its names; the documents of each name follow in `docs`, kinds one after another. */
  names: string[][];
  /** How many documents each name has (names of every kind, in that order). */
  counts: Uint32Array;
  /** Every name's documents, ascending, numbered in the snapshot. */
  docs: Int32Array;
}

/** Postings [doc, tf, …] (or an entity's documents) whose documents are numbered from `base`. */
export interface Postings {
  list: ArrayLike<number>;
  base: number;
}
