/**
 * "Schedule…": a topic researched every day or week (issue 46 item 5). The analyst picks how often
 * and, if they like, a time of day in their display zone; the form says in words when it will run
 * and sends the service its UTC time of day. Refusals (the plan's cap, the research limit) are
 * said here, at the action.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { firstRunOf, scheduleInWords, TIME_OF_DAY, utcTimeOfDay, type ScheduleEvery } from '../../../../shared/research-schedules';
import { zoneLabel } from '../../../../shared/format';
import { useDisplay } from '../../app/use-display';
import { useAppStore } from '../../store/app-store';

export interface ScheduleDraft {
  topic: string;
  preset: string;
}

export function ScheduleForm({ draft, onClose }: { draft: ScheduleDraft; onClose: (scheduled: boolean) => void }) {
  const createSchedule = useAppStore((s) => s.createSchedule);
  const error = useAppStore((s) => s.scheduleError);
  const display = useDisplay();
  const [topic, setTopic] = useState(draft.topic);
  const [every, setEvery] = useState<ScheduleEvery>('weekly');
  const [time, setTime] = useState('');
  const [busy, setBusy] = useState(false);
  const headingId = useId();
  const form = useRef<HTMLFormElement>(null);
  // Opened from a run far down the list: brought into view, with the topic ready to edit.
  useEffect(() => {
    form.current?.scrollIntoView?.({ block: 'nearest' });
    form.current?.querySelector<HTMLInputElement>('[data-testid="schedule-topic"]')?.focus();
  }, []);

  const now = Date.now();
  const timeOk = time === '' || TIME_OF_DAY.test(time);
  const atUtc = time && timeOk ? utcTimeOfDay(time, display.zone, now) : null;
  // With no time the service runs it at this time of day: the first run is a day or a week from now.
  const nowUtc = new Date(now).toISOString().slice(11, 16);
  const firstRun = firstRunOf(every, atUtc ?? nowUtc, now);
  const valid = topic.trim().length >= 3 && timeOk;

  return (
    <form
      ref={form}
      className="schedule-form"
      role="dialog"
      aria-labelledby={headingId}
      data-testid="schedule-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (!valid || busy) return;
        setBusy(true);
        void createSchedule({ topic: topic.trim(), preset: draft.preset, every, ...(atUtc ? { at: atUtc } : {}) })
          .then((made) => made && onClose(true))
          .finally(() => setBusy(false));
      }}
    >
      <h2 id={headingId}>Schedule research</h2>
      <label className="schedule-field schedule-topic-field">
        <span>Topic</span>
        <input value={topic} onChange={(event) => setTopic(event.target.value)} maxLength={500} data-testid="schedule-topic" />
      </label>
      <fieldset className="schedule-every">
        <legend>How often</legend>
        {(['daily', 'weekly'] as const).map((value) => (
          <label key={value} className={every === value ? 'chosen' : undefined}>
            <input type="radio" name="schedule-every" value={value} checked={every === value} onChange={() => setEvery(value)} data-testid={`schedule-every-${value}`} />
            {value === 'daily' ? 'Every day' : 'Every week'}
          </label>
        ))}
      </fieldset>
      <label className="schedule-field">
        <span>
          At <span className="hint">({zoneLabel(display.zone)}, optional)</span>
        </span>
        <input type="time" value={time} onChange={(event) => setTime(event.target.value)} data-testid="schedule-time" />
      </label>
      <p className="schedule-preview" data-testid="schedule-preview" aria-live="polite">
        {scheduleInWords(every, firstRun, display.zone)}
        {time ? '' : ' (this time of day)'}, first on {display.date(firstRun)}. Each report opens with what changed since the one before, and the app tells you when it finds something.
      </p>
      {error ? (
        <p className="notice" role="alert" data-testid="schedule-error">
          {error}
        </p>
      ) : null}
      <div className="schedule-buttons">
        <button type="submit" disabled={!valid || busy} data-testid="schedule-create">
          {busy ? 'Scheduling…' : 'Schedule'}
        </button>
        <button type="button" className="secondary" onClick={() => onClose(false)} data-testid="schedule-cancel">
          Cancel
        </button>
      </div>
    </form>
  );
}
