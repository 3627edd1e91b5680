/**
 * The library as the renderer shows it: the user's libraries (personal and team, kept current
 * from main's `library.changed` push), the last search's result and facets, and the item open in
 * the reader. The library view keeps only its query and its menus; a `saved/lib_…` link opens
 * an item through `openSaved`.
 */
import type { LibraryLocation, LibraryQuery } from '../../../shared/library';
import { clarity } from '../bridge/clarity';
import type { LibrarySlice, SliceCreator } from './types';

export const createLibrarySlice: SliceCreator<LibrarySlice> = (set, get) => ({
  libraryLocations: [],
  libraryChanges: 0,
  libraryResult: null,
  libraryFacets: { sources: [], entities: [], tags: [] },
  libraryItem: null,
  libraryError: null,
  connectLibrary() {
    void get().refreshLibraryLocations();
    return clarity().onPush('library.changed', ({ locations }) => set((s) => ({ libraryLocations: locations, libraryChanges: s.libraryChanges + 1 })));
  },
  async refreshLibraryLocations() {
    const result = await clarity().invoke('library.locations');
    if (result.ok) set({ libraryLocations: result.value });
  },
  async searchLibrary(query: LibraryQuery) {
    const clean = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== '')) as LibraryQuery;
    const [found, facets] = await Promise.all([clarity().invoke('library.search', clean), clarity().invoke('library.facets')]);
    if (found.ok) set({ libraryResult: found.value });
    else set({ libraryError: found.error.message });
    if (facets.ok) set({ libraryFacets: facets.value });
  },
  async openLibraryItem(id: string, location?: string) {
    const result = await clarity().invoke('library.get', { id, location });
    if (result.ok) set({ libraryItem: result.value, libraryError: null });
    else set({ libraryError: result.error.message });
    return result.ok;
  },
  closeLibraryItem: () => set({ libraryItem: null }),
  async openSaved(id: string) {
    get().setView('library');
    return get().openLibraryItem(id);
  },
});

/** A library's name for display; a location that is gone still reads sensibly. */
export function locationName(all: LibraryLocation[], id: string): string {
  return all.find((l) => l.id === id)?.name ?? (id === 'personal' ? 'Personal' : 'Team library');
}
