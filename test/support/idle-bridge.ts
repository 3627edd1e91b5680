/** A bridge that answers every call with nothing and streams nothing: for renderer tests that drive the store themselves. */
import type { ClarityBridge } from '../../src/shared/bridge-contract';

export const idleBridge = (): ClarityBridge => ({
  host: 'electron',
  invoke: (async () => ({ ok: true, value: null })) as ClarityBridge['invoke'],
  startStream: async () => ({ ok: true, value: null }),
  abortStream: async () => undefined,
  onStreamMessage: () => () => undefined,
  onPush: () => () => undefined,
});
