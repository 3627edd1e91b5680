/**
 * "Edit" on a schedule card: how often and the time of day, in the analyst's zone, changed in place
 * at the service (decision 0050), so the schedule keeps its runs, its last report and what changed
 * since. The form starts from the schedule as it is and says in words when it will run next.
 */
import { useId, useState } from 'react';
import { localTimeOfDay, nextRunOf, scheduleInWords, TIME_OF_DAY, utcTimeOfDay, type ResearchScheduleView, type ScheduleEvery } from '../../../../shared/research-schedules';
import { zoneLabel } from '../../../../shared/format';
import { useDisplay } from '../../app/use-display';
import { useAppStore } from '../../store/app-store';

export function ScheduleEdit({ schedule, onClose }: { schedule: ResearchScheduleView; onClose: () => void }) {
  const updateSchedule = useAppStore((s) => s.updateSchedule);
  const error = useAppStore((s) => s.scheduleError);
  const display = useDisplay();
  const now = Date.now();
  const [every, setEvery] = useState<ScheduleEvery>(schedule.every);
  const [time, setTime] = useState(() => localTimeOfDay(schedule.at, display.zone, now));
  const [busy, setBusy] = useState(false);
  const headingId = useId();

  const timeOk = TIME_OF_DAY.test(time);
  const atUtc = timeOk ? utcTimeOfDay(time, display.zone, now) : null;
  const unchanged = every === schedule.every && atUtc === schedule.at;
  const nextRun = atUtc ? nextRunOf(every, atUtc, Date.parse(schedule.createdAt), now) : null;

  return (
    <form
      className="schedule-form schedule-edit"
      role="group"
      aria-labelledby={headingId}
      data-testid="schedule-edit"
      onSubmit={(event) => {
        event.preventDefault();
        if (!atUtc || unchanged || busy) return;
        setBusy(true);
        void updateSchedule(schedule.id, { ...(every !== schedule.every ? { every } : {}), ...(atUtc !== schedule.at ? { at: atUtc } : {}) })
          .then((changed) => changed && onClose())
          .finally(() => setBusy(false));
      }}
    >
      <h3 id={headingId}>Change when “{schedule.topic}” runs</h3>
      <fieldset className="schedule-every">
        <legend>How often</legend>
        {(['daily', 'weekly'] as const).map((value) => (
          <label key={value} className={every === value ? 'chosen' : undefined}>
            <input type="radio" name={`schedule-edit-every-${schedule.id}`} value={value} checked={every === value} onChange={() => setEvery(value)} data-testid={`schedule-edit-every-${value}`} />
            {value === 'daily' ? 'Every day' : 'Every week'}
          </label>
        ))}
      </fieldset>
      <label className="schedule-field">
        <span>
          At <span className="hint">({zoneLabel(display.zone)})</span>
        </span>
        <input type="time" required value={time} onChange={(event) => setTime(event.target.value)} data-testid="schedule-edit-time" />
      </label>
      <p className="schedule-preview" data-testid="schedule-edit-preview" aria-live="polite">
        {nextRun === null
          ? 'Give a time of day, e.g. 09:00.'
          : unchanged
            ? 'This is when it runs now.'
            : `${scheduleInWords(every, nextRun, display.zone)}, next on ${display.date(nextRun)}. Its reports so far stay, and the next one still says what changed since the last.`}
      </p>
      {error ? (
        <p className="notice" role="alert" data-testid="schedule-edit-error">
          {error}
        </p>
      ) : null}
      <div className="schedule-buttons">
        <button type="submit" disabled={!atUtc || unchanged || busy} data-testid="schedule-edit-save">
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="secondary" onClick={onClose} data-testid="schedule-edit-cancel">
          Cancel
        </button>
      </div>
    </form>
  );
}
