/**
 * SECURITY: which IPC messages the main process accepts. Kept free of `electron` imports so the
 * rule is unit-tested everywhere; the IPC transport applies it to every message.
 */
export interface SenderFrameLike {
  url: string;
}

export interface IpcEventLike {
  sender: unknown;
  senderFrame: SenderFrameLike | null;
}

export interface TrustedWindow {
  webContents: unknown;
  mainFrame: SenderFrameLike;
}

/**
 * scheme://host of a URL. `URL.origin` is "null" for custom schemes such as clarity://, so it
 * cannot be compared; this can.
 */
export function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.host ? `${parsed.protocol}//${parsed.host}` : null;
  } catch {
    return null;
  }
}

/** Our window, its main frame, loaded from our own origin: anything else is dropped. */
export function isTrustedSender(event: IpcEventLike, window: TrustedWindow | null, trustedOrigin: string): boolean {
  if (!window || event.sender !== window.webContents) return false;
  const frame = event.senderFrame;
  if (!frame || frame !== window.mainFrame) return false;
  return originOf(frame.url) === trustedOrigin;
}
