/**
 * Exposes exactly the ClarityBridge as `window.clarity`. Never ipcRenderer itself; callbacks
 * get payloads only, never the IPC event (docs/decisions/conventions.md §1, §3). The bridge is built in ./bridge.ts.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { createPreloadBridge, type IpcRendererLike } from './bridge';

// Electron's listener types are wider than IpcRendererLike's; the calls made are the same.
contextBridge.exposeInMainWorld('clarity', createPreloadBridge(ipcRenderer as unknown as IpcRendererLike));
