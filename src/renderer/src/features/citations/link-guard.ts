import { openExternalLink } from './open-link';

/**
 * SECURITY: the backstop for every link in the app. A click (any button, any modifier) or a
 * middle click on a link that no handler took care of never navigates and never opens a tab
 * by itself: its default is prevented and the address goes to the allow-listed opener. Without
 * it a middle click on a link in service content opened a new tab straight at the service's URL.
 */
export function installLinkGuard(target: Document = document): () => void {
  const guard = (event: MouseEvent): void => {
    const link = (event.target as Element | null)?.closest?.('a');
    if (!link) return;
    // The app's own export download (a blob: link it makes; the sanitiser never keeps `download`).
    if (link.hasAttribute('download') && link.getAttribute('href')?.startsWith('blob:')) return;
    const handled = event.defaultPrevented;
    event.preventDefault();
    const href = link.getAttribute('href');
    // A handler already sent a plain click to the opener; anything else goes to it here.
    if (href && !(handled && event.type === 'click') && (event.type === 'click' || event.button === 1)) void openExternalLink(href);
  };
  target.addEventListener('click', guard);
  target.addEventListener('auxclick', guard);
  return () => {
    target.removeEventListener('click', guard);
    target.removeEventListener('auxclick', guard);
  };
}
