/**
 * One zustand store of typed slices (docs/decisions/conventions.md §5), one file per slice. The renderer's only way
 * out is the bridge; this store never sees a secret (credential status only: set/not set,
 * last four). Conversations live in the main process; the chat slice shows the open one.
 */
import { create } from 'zustand';
import { createChatSlice } from './chat-slice';
import { createHealthSlice } from './health-slice';
import { createLibrarySlice } from './library-slice';
import { createResearchSlice } from './research-slice';
import { createServiceSlice } from './service-slice';
import type { AppState, ConnectSlice, SliceCreator } from './types';
import { createUiSlice } from './ui-slice';
import { createWatchlistSlice } from './watchlist-slice';

export type * from './types';
export { isHeld } from './turn-content';

const createConnectSlice: SliceCreator<ConnectSlice> = (_set, get) => ({
  connect() {
    const unsubscribes = [get().connectService(), get().connectResearch(), get().connectHealth(), get().connectDataNotices(), get().connectServiceNotices(), get().connectWatchlist(), get().connectLibrary()];
    return () => {
      for (const unsubscribe of unsubscribes) unsubscribe();
    };
  },
});

export const useAppStore = create<AppState>()((...args) => ({
  ...createChatSlice(...args),
  ...createServiceSlice(...args),
  ...createUiSlice(...args),
  ...createResearchSlice(...args),
  ...createHealthSlice(...args),
  ...createWatchlistSlice(...args),
  ...createLibrarySlice(...args),
  ...createConnectSlice(...args),
}));
