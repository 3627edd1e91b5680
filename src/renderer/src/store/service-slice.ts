/** Which service the app talks to, its status, the credential status, the settings. */
import { clarity } from '../bridge/clarity';
import { HOST_CONNECTION_EVENT, type HostConnectionDetail } from '../bridge/ws-bridge';
import type { ServiceSlice, SliceCreator } from './types';

export const createServiceSlice: SliceCreator<ServiceSlice> = (set) => ({
  serviceStatus: null,
  credentialStatus: null,
  settings: null,
  hostLost: null,
  setCredentialStatus: (status) => set({ credentialStatus: status }),
  setServiceStatus: (status) => set({ serviceStatus: status }),
  setSettings: (settings) => set({ settings }),
  connectService() {
    const bridge = clarity();
    const offStatus = bridge.onPush('service.status', (status) => set({ serviceStatus: status }));
    const offCredentials = bridge.onPush('credentials.status', (status) => set({ credentialStatus: status }));
    const load = (): void => {
      void bridge.invoke('service.status').then((r) => r.ok && set({ serviceStatus: r.value }));
      void bridge.invoke('credentials.status').then((r) => r.ok && set({ credentialStatus: r.value }));
      void bridge.invoke('settings.get').then((r) => r.ok && set({ settings: r.value }));
    };
    load();
    // The browser host restarted: say so while it is away, and read the state afresh when it is back.
    const onHost = (event: Event): void => {
      const { connected, attempts } = (event as CustomEvent<HostConnectionDetail>).detail;
      if (connected) {
        set({ hostLost: null });
        load();
      } else set((s) => ({ hostLost: { since: s.hostLost?.since ?? Date.now(), attempts } }));
    };
    window.addEventListener(HOST_CONNECTION_EVENT, onHost);
    return () => {
      window.removeEventListener(HOST_CONNECTION_EVENT, onHost);
      offStatus();
      offCredentials();
    };
  },
});
