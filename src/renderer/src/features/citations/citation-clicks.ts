import type { MouseEvent } from 'react';
import { openExternalLink } from './open-link';

/**
 * One click handler for rendered answers, reports and saved items: a chip selects its
 * citation; a link never navigates, it goes through the allow-listed opener.
 *
 * SECURITY: the default action of any click inside a link is prevented first, whatever else
 * the click is (a chip inside a link included), so service content can never steer the window.
 * Chips are only the app's own `button.cite-chip` elements (markdown.ts builds them).
 */
export function handleCitationClick(event: MouseEvent<HTMLElement>, onCite: (citationId: string, chip: HTMLElement) => void): void {
  const target = event.target as HTMLElement;
  const link = target.closest<HTMLAnchorElement>('a');
  if (link) event.preventDefault();
  const chip = target.closest<HTMLButtonElement>('button.cite-chip[data-cite]');
  if (chip?.dataset.cite) {
    onCite(chip.dataset.cite, chip);
    return;
  }
  const href = link?.getAttribute('href');
  if (href) void openExternalLink(href);
}
