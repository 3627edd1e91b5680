import { clarity } from '../../bridge/clarity';

/**
 * SECURITY: the one way the renderer opens a link. Main checks it against the allow-list
 * (http, https, mailto) and opens it in the system browser; in the browser host, where main
 * has no shell, the renderer opens the URL main approved in a new, detached tab.
 */
export async function openExternalLink(url: string): Promise<void> {
  const result = await clarity().invoke('links.openExternal', { url });
  if (result.ok && !result.value.opened && clarity().host === 'browser') {
    window.open(url, '_blank', 'noopener,noreferrer');
  }
}
