/**
 * The user's libraries (personal and team), kept current from main's `library.changed` push.
 * One subscription for the whole renderer; components read it with `useLibraryLocations()`.
 */
import { useSyncExternalStore } from 'react';
import type { LibraryLocation } from '../../../../shared/library';
import { clarity } from '../../bridge/clarity';

let locations: LibraryLocation[] = [];
let changes = 0;
const listeners = new Set<() => void>();
let connected = false;

function set(next: LibraryLocation[]): void {
  locations = next;
  changes += 1;
  for (const listener of listeners) listener();
}

export function refreshLocations(): void {
  void clarity()
    .invoke('library.locations')
    .then((result) => result.ok && set(result.value));
}

function subscribe(listener: () => void): () => void {
  if (!connected) {
    connected = true;
    clarity().onPush('library.changed', (payload) => set(payload.locations));
    refreshLocations();
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useLibraryLocations(): LibraryLocation[] {
  return useSyncExternalStore(subscribe, () => locations);
}

/** Changes with every push: views re-run their search on it (another writer saved, say). */
export function useLibraryChanges(): number {
  return useSyncExternalStore(subscribe, () => changes);
}

export function locationName(all: LibraryLocation[], id: string): string {
  return all.find((l) => l.id === id)?.name ?? (id === 'personal' ? 'Personal' : 'Team library');
}
