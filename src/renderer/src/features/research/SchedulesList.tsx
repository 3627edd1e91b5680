/**
 * The analyst's research schedules (issue 46 item 5): each topic, how often in words, its next
 * run, its last run with a link to the report, "Run now", "Edit" (how often and when, changed in
 * place) and "Delete" (asked first). The plan's
 * cap and the research limit are said under the heading, before anyone runs into them.
 */
import { useState, type ReactNode } from 'react';
import type { ResearchRunSummary } from '../../../../shared/research';
import { scheduleInWords, type ResearchScheduleView } from '../../../../shared/research-schedules';
import { useDisplay } from '../../app/use-display';
import { useAppStore } from '../../store/app-store';
import { ScheduleEdit } from './ScheduleEdit';

const LAST_RUN_TEXT: Record<ResearchRunSummary['state'], string> = {
  starting: 'Starting',
  running: 'Running',
  queued: 'Running at the service',
  completed: 'Ready',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/**
 * `signInNeeded`: what to say instead of the list on a service that needs sign-in; `form`: the
 * open "Schedule research" form (refusals are said there while it is open); `onSchedule` opens it.
 */
export function SchedulesList({ signInNeeded, form, onSchedule }: { signInNeeded: ReactNode; form: ReactNode; onSchedule: (() => void) | null }) {
  const formOpen = form !== null;
  const view = useAppStore((s) => s.schedules);
  const problem = useAppStore((s) => s.schedulesProblem);
  const error = useAppStore((s) => s.scheduleError);
  // The schedule being edited: its refusals are said in its form, not also above the list.
  const [editingId, setEditingId] = useState<string | null>(null);

  return (
    <section className="schedules" aria-labelledby="schedules-heading" data-testid="research-schedules">
      <div className="schedules-head">
        <h2 id="schedules-heading">Schedules</h2>
        {view ? (
          <p className="hint" data-testid="schedules-limits">
            {view.schedules.length} of the {view.limit} {view.limit === 1 ? 'schedule' : 'schedules'} your plan allows. Making one, and each of its runs, counts toward research&apos;s limit of {view.researchLimit.runs} runs every {view.researchLimit.minutes} minutes.
          </p>
        ) : null}
        <button type="button" className="secondary schedule-new" disabled={onSchedule === null || formOpen} onClick={() => onSchedule?.()} data-testid="research-schedule">
          Schedule a topic…
        </button>
      </div>
      {form}
      {error && !formOpen && editingId === null && !signInNeeded ? (
        <p className="notice" role="alert" data-testid="schedules-error">
          {error}
        </p>
      ) : null}
      {signInNeeded ?? (problem ? (
        <p className="hint" data-testid="schedules-problem">
          {problem}
        </p>
      ) : view && view.schedules.length === 0 ? (formOpen ? null : (
        <p className="hint empty-state" data-testid="schedules-empty">
          No schedules yet. Schedule a topic, or a run below, to have it researched every day or week; each report opens with what changed since the one before.
        </p>
      )) : view ? (
        <ul className="schedule-cards">
          {view.schedules.map((schedule) => (
            <ScheduleCard key={schedule.id} schedule={schedule} editing={editingId === schedule.id} onEditing={(on) => setEditingId(on ? schedule.id : null)} />
          ))}
        </ul>
      ) : null)}
    </section>
  );
}

function ScheduleCard({ schedule, editing, onEditing }: { schedule: ResearchScheduleView; editing: boolean; onEditing: (on: boolean) => void }) {
  const display = useDisplay();
  const lastRun = useAppStore((s) => (schedule.lastRunId ? (s.runs.find((run) => run.id === schedule.lastRunId) ?? null) : null));
  const openReport = useAppStore((s) => s.openReport);
  const runSchedule = useAppStore((s) => s.runSchedule);
  const deleteSchedule = useAppStore((s) => s.deleteSchedule);
  const [confirming, setConfirming] = useState(false);
  const clearScheduleError = useAppStore((s) => s.clearScheduleError);
  const [busy, setBusy] = useState(false);
  const act = (work: () => Promise<boolean>): void => {
    setBusy(true);
    void work().finally(() => setBusy(false));
  };
  const running = lastRun !== null && ['starting', 'running', 'queued'].includes(lastRun.state);

  return (
    <li className="schedule-card" data-testid="schedule" data-id={schedule.id}>
      <div className="schedule-main">
        <div className="schedule-topic" data-testid="schedule-topic-text">
          {schedule.topic}
        </div>
        <div className="schedule-when" data-testid="schedule-every-text">
          {scheduleInWords(schedule.every, schedule.nextRunAt, display.zone)}
        </div>
      </div>
      <dl className="schedule-facts">
        <div>
          <dt>Next run</dt>
          <dd data-testid="schedule-next-run">
            <time dateTime={schedule.nextRunAt}>{display.dateTime(schedule.nextRunAt)}</time>
            <span className="hint"> · {display.dayAge(schedule.nextRunAt)}</span>
          </dd>
        </div>
        <div>
          <dt>Last run</dt>
          <dd data-testid="schedule-last-run" data-state={lastRun?.state ?? 'none'}>
            {lastRun ? (
              <>
                <span className={`state state-${lastRun.state}`}>{LAST_RUN_TEXT[lastRun.state]}</span>{' '}
                <span className="hint">{display.dateTime(lastRun.finishedAt ?? lastRun.startedAt)}</span>
                {lastRun.state === 'completed' ? (
                  <>
                    {' '}
                    <button type="button" className="link" onClick={() => openReport(lastRun.id)} data-testid="schedule-open-report">
                      Open report{lastRun.unseenChanges ? ' (what changed)' : ''}
                    </button>
                  </>
                ) : null}
              </>
            ) : (
              <span className="hint">Not run yet</span>
            )}
          </dd>
        </div>
      </dl>
      <div className="schedule-actions">
        <button type="button" className="secondary" disabled={busy || running} onClick={() => act(() => runSchedule(schedule.id))} data-testid="schedule-run-now">
          {running ? 'Running…' : 'Run now'}
        </button>
        <button
          type="button"
          className="secondary"
          disabled={busy || editing}
          onClick={() => {
            clearScheduleError();
            setConfirming(false);
            onEditing(true);
          }}
          data-testid="schedule-edit-open"
        >
          Edit
        </button>
        <button type="button" className="secondary danger" disabled={busy} onClick={() => setConfirming(true)} data-testid="schedule-delete">
          Delete
        </button>
      </div>
      {editing ? (
        <ScheduleEdit
          schedule={schedule}
          onClose={() => {
            clearScheduleError();
            onEditing(false);
          }}
        />
      ) : null}
      {confirming ? (
        <div className="schedule-confirm" role="alertdialog" aria-label={`Delete the schedule “${schedule.topic}”?`} data-testid="schedule-delete-confirm">
          <span>
            Stop researching <strong>{schedule.topic}</strong> {schedule.every === 'daily' ? 'every day' : 'every week'}? Its reports stay in the list.
          </span>
          <button type="button" className="danger" disabled={busy} onClick={() => act(() => deleteSchedule(schedule.id))} data-testid="schedule-delete-yes">
            Delete schedule
          </button>
          <button type="button" className="secondary" onClick={() => setConfirming(false)} data-testid="schedule-delete-no">
            Keep it
          </button>
        </div>
      ) : null}
    </li>
  );
}
