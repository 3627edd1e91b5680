import { useState } from 'react';
import type { ThemeChoice } from '../../../../shared/bridge-contract';
import { clarity } from '../../bridge/clarity';
import { useAppStore } from '../../store/app-store';

const CHOICES: Array<{ value: ThemeChoice; label: string }> = [
  { value: 'system', label: 'System (follows your computer)' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

/** Light, dark or the system's choice; saved with the app's settings by main. */
export function ThemeSettings() {
  const theme = useAppStore((s) => s.settings?.theme ?? 'system');
  const [message, setMessage] = useState<string | null>(null);
  const choose = async (value: ThemeChoice): Promise<void> => {
    // Shown at once; main saves it, and a failure puts the old choice back.
    const previous = useAppStore.getState().settings;
    if (previous) useAppStore.setState({ settings: { ...previous, theme: value } });
    const result = await clarity().invoke('settings.setTheme', { theme: value });
    if (result.ok) {
      useAppStore.setState({ settings: result.value });
      setMessage(null);
    } else {
      useAppStore.setState({ settings: previous });
      setMessage(result.error.message);
    }
  };
  return (
    <fieldset data-testid="theme-settings">
      <legend>Appearance</legend>
      <div className="row" role="radiogroup" aria-label="Theme">
        {CHOICES.map((choice) => (
          <label key={choice.value}>
            <input type="radio" name="theme" value={choice.value} checked={theme === choice.value} onChange={() => void choose(choice.value)} data-testid={`theme-${choice.value}`} />{' '}
            {choice.label}
          </label>
        ))}
      </div>
      {message ? (
        <p className="notice" role="alert">
          {message}
        </p>
      ) : null}
    </fieldset>
  );
}
