import { useEffect, type KeyboardEvent, type RefObject } from 'react';

/**
 * Closes a menu or drawer on Esc, putting focus back on the button that opened it, and on a
 * press anywhere outside it. Returns the keydown handler for the menu's root.
 */
export function useDismiss(open: boolean, close: () => void, root: RefObject<HTMLElement | null>, opener: RefObject<HTMLElement | null>): (event: KeyboardEvent) => void {
  useEffect(() => {
    if (!open) return;
    const onDown = (event: MouseEvent): void => {
      const target = event.target as Node;
      if (!root.current?.contains(target) && !opener.current?.contains(target)) close();
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [open, close, root, opener]);
  return (event) => {
    if (event.key !== 'Escape' || !open) return;
    event.preventDefault();
    close();
    opener.current?.focus();
  };
}
