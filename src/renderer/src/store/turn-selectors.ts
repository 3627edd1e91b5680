/**
 * Selectors over the open conversation's turns that views subscribe to (issue 50, round 9). Every
 * store write runs every subscribed selector: each key typed in the question box (the draft is in
 * this store) and each streamed batch (a new `turns` array, one turn replaced, once a frame). A
 * selector here costs nothing for a write that leaves `turns` as it was, and for a batch reads the
 * turns that changed, not all of a conversation's 1,000.
 */
import type { AppState, TurnEntry } from './types';

/** A turn's key in the list: the id it was asked under, kept once main names it. */
export const rowKeyOf = (turn: TurnEntry): string => turn.rowKey ?? turn.id;

/**
 * A selector of the turns' row keys (the list's items), for one subscriber: the same array until
 * a turn is added, removed or re-keyed, so the list renders only then. `turns` the same object: the
 * last array, nothing read. A new `turns` of the same length (a streamed batch): the turns are
 * compared by identity and only a replaced one's key is read.
 */
export function rowKeysSelector(): (state: AppState) => readonly string[] {
  let turns: readonly TurnEntry[] | null = null;
  let keys: readonly string[] = [];
  return (state) => {
    if (state.turns === turns) return keys;
    const before = turns;
    turns = state.turns;
    if (before && before.length === turns.length) {
      let i = 0;
      while (i < turns.length && (turns[i] === before[i] || rowKeyOf(turns[i]!) === keys[i])) i += 1;
      if (i === turns.length) return keys;
    }
    keys = turns.map(rowKeyOf);
    return keys;
  };
}

const finished = (turn: TurnEntry): boolean => turn.status === 'done' || turn.status === 'incomplete';

/**
 * Whether any turn has an answer to share or save (the toolbar's actions). Read from the end: a
 * conversation's finished answers are its latest ones, so this reads one or two turns a write.
 */
export function hasFinishedTurn(state: AppState): boolean {
  const { turns } = state;
  for (let i = turns.length - 1; i >= 0; i -= 1) if (finished(turns[i]!)) return true;
  return false;
}

/**
 * The turn of the selected citation (the side panel), or undefined: no turn is read while no
 * citation is selected (a search of every turn on every write, before round 9).
 */
export function selectedCitationTurn(state: AppState): TurnEntry | undefined {
  const id = state.selectedCitation?.turnId;
  if (id === undefined) return undefined;
  const { turns } = state;
  for (let i = turns.length - 1; i >= 0; i -= 1) if (turns[i]!.id === id) return turns[i];
  return undefined;
}
