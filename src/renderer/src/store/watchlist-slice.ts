/** The watchlist as main pushes it, follow actions, and the notice for fresh matches. */
import type { FollowTargetArgs } from '../../../shared/watchlist';
import { clarity } from '../bridge/clarity';
import type { SliceCreator, WatchlistSlice } from './types';

export const createWatchlistSlice: SliceCreator<WatchlistSlice> = (set, get) => ({
  watchlist: null,
  watchNotice: null,
  watchError: null,
  connectWatchlist() {
    const bridge = clarity();
    void bridge.invoke('watchlist.get').then((result) => result.ok && set({ watchlist: result.value }));
    return bridge.onPush('watchlist.updated', (view) => {
      set({ watchlist: view });
      const first = view.items.find((item) => item.signal.id === view.fresh[0]);
      if (view.fresh.length > 0 && first) set({ watchNotice: { count: view.fresh.length, title: first.signal.title, signalId: first.signal.id } });
    });
  },
  async follow(target: FollowTargetArgs) {
    const result = await clarity().invoke('watchlist.follow', target);
    if (result.ok) set({ watchlist: result.value, watchError: null });
    else set({ watchError: result.error.message });
    return result.ok ? { ok: true } : { ok: false, message: result.error.message };
  },
  async unfollow(id: string) {
    const result = await clarity().invoke('watchlist.unfollow', { id });
    if (result.ok) set({ watchlist: result.value });
    else set({ watchError: result.error.message });
  },
  async markRead(ids?: string[]) {
    const result = await clarity().invoke('watchlist.markRead', ids ? { ids } : {});
    if (result.ok) set({ watchlist: result.value });
  },
  async refreshWatchlist() {
    const result = await clarity().invoke('watchlist.refresh');
    if (result.ok) set({ watchlist: result.value });
  },
  dismissWatchNotice: () => set({ watchNotice: null }),
  async askAbout(signals) {
    if (signals.length === 0) return;
    await get().newConversation();
    const question =
      signals.length === 1
        ? `What does this mean, and what else is happening around it: "${signals[0]!.title}" (${signals[0]!.id})?`
        : `What do these new signals tell me, taken together?\n${signals.map((s) => `- ${s.title} (${s.id})`).join('\n')}`;
    get().setDraft(question);
    get().setView('chat');
    await get().ask();
  },
});
