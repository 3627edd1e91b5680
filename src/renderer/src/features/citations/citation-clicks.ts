import type { MouseEvent } from 'react';
import { openExternalLink } from './open-link';

/**
 * One click handler for rendered answers, reports and saved items: a chip selects its
 * citation; a link never navigates, it goes through the allow-listed opener.
 */
export function handleCitationClick(event: MouseEvent<HTMLElement>, onCite: (citationId: string) => void): void {
  const target = event.target as HTMLElement;
  const chip = target.closest<HTMLElement>('[data-cite]');
  if (chip?.dataset.cite) {
    onCite(chip.dataset.cite);
    return;
  }
  const link = target.closest<HTMLAnchorElement>('a');
  if (link) {
    event.preventDefault();
    const href = link.getAttribute('href');
    if (href) void openExternalLink(href);
  }
}
