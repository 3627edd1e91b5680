/** Which service the app talks to, its status, the credential status, the settings. */
import { clarity } from '../bridge/clarity';
import type { ServiceSlice, SliceCreator } from './types';

export const createServiceSlice: SliceCreator<ServiceSlice> = (set) => ({
  serviceStatus: null,
  credentialStatus: null,
  settings: null,
  setCredentialStatus: (status) => set({ credentialStatus: status }),
  setServiceStatus: (status) => set({ serviceStatus: status }),
  setSettings: (settings) => set({ settings }),
  connectService() {
    const bridge = clarity();
    const offStatus = bridge.onPush('service.status', (status) => set({ serviceStatus: status }));
    const offCredentials = bridge.onPush('credentials.status', (status) => set({ credentialStatus: status }));
    void bridge.invoke('service.status').then((r) => r.ok && set({ serviceStatus: r.value }));
    void bridge.invoke('credentials.status').then((r) => r.ok && set({ credentialStatus: r.value }));
    void bridge.invoke('settings.get').then((r) => r.ok && set({ settings: r.value }));
    return () => {
      offStatus();
      offCredentials();
    };
  },
});
