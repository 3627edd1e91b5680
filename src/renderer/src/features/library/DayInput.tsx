/**
 * A day typed day first ("18 Nov 2026", "18/11/2026"), instead of the browser's date picker,
 * which shows the US mm/dd/yyyy on many systems. Reports "YYYY-MM-DD" or undefined.
 */
import { useEffect, useState } from 'react';
import { formatDate, parseDayInput } from '../../../../shared/format';

const shown = (iso: string | undefined): string => (iso ? formatDate(`${iso}T12:00:00Z`, 'UTC') : '');

export function DayInput({ value, onChange, label, testId }: { value: string | undefined; onChange(day: string | undefined): void; label: string; testId: string }) {
  const [text, setText] = useState(shown(value));
  const [invalid, setInvalid] = useState(false);
  useEffect(() => setText(shown(value)), [value]);
  const commit = (): void => {
    if (text.trim() === '') {
      setInvalid(false);
      if (value !== undefined) onChange(undefined);
      return;
    }
    const day = parseDayInput(text);
    setInvalid(day === null);
    if (day === null) return;
    setText(shown(day));
    if (day !== value) onChange(day);
  };
  return (
    <input
      className={`day-input${invalid ? ' invalid' : ''}`}
      value={text}
      placeholder="dd/mm/yyyy"
      size={11}
      aria-label={label}
      aria-invalid={invalid}
      title={invalid ? 'Not a day: type it day first, e.g. 18/11/2026 or 18 Nov 2026.' : 'Day first, e.g. 18/11/2026 or 18 Nov 2026'}
      onChange={(e) => setText(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => e.key === 'Enter' && commit()}
      data-testid={testId}
    />
  );
}
