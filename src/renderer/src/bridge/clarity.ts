import type { ClarityBridge } from '../../../shared/bridge-contract';
import { createWebSocketBridge } from './ws-bridge';

declare global {
  interface Window {
    clarity?: ClarityBridge;
  }
}

let bridge: ClarityBridge | null = null;

/** The bridge: the preload's in Electron, a WebSocket client in the browser host. */
export function clarity(): ClarityBridge {
  if (bridge) return bridge;
  bridge = window.clarity ?? createWebSocketBridge(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/bridge`);
  return bridge;
}

/** Tests give the renderer a bridge of their own. */
export function setBridgeForTests(next: ClarityBridge | null): void {
  bridge = next;
}
