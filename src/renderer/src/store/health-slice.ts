/** The sources-health view as main last pushed it. */
import { clarity } from '../bridge/clarity';
import type { HealthSlice, SliceCreator } from './types';

export const createHealthSlice: SliceCreator<HealthSlice> = (set) => ({
  health: null,
  connectHealth() {
    return clarity().onPush('health.updated', (view) => set({ health: view }));
  },
  watchHealth() {
    const bridge = clarity();
    void bridge.invoke('health.watch').then((result) => result.ok && set({ health: result.value }));
    return () => void bridge.invoke('health.unwatch');
  },
});
