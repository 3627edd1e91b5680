import { useEffect } from 'react';
import { useAppStore } from '../store/app-store';

/**
 * Puts the theme chosen in Settings on the root element. The stylesheet's colours are
 * `light-dark()` pairs, so "system" (color-scheme: light dark) follows prefers-color-scheme
 * without any script, and a choice of light or dark pins it.
 */
export function useTheme(): void {
  const theme = useAppStore((s) => s.settings?.theme ?? 'system');
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
}
