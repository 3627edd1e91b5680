import { useEffect, useState } from 'react';
import { formatDuration } from '../../../../shared/format';
import { needsCredential } from '../../../../shared/plain-errors';
import type { ResearchMode, ResearchRunSummary } from '../../../../shared/research';
import { useDisplay } from '../../app/use-display';
import { useAppStore } from '../../store/app-store';
import { ReportViewer } from './ReportViewer';
import { COMPUTED_LOCALLY, runCost } from './run-cost';
import { ScheduleForm, type ScheduleDraft } from './ScheduleForm';
import { SchedulesList } from './SchedulesList';
import './schedules.css';

const STATE_TEXT: Record<ResearchRunSummary['state'], string> = {
  starting: 'Starting',
  running: 'Running',
  queued: 'Queued',
  completed: 'Ready',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** The presets the interface documents; the service picks depth and length from it. */
const PRESETS = [{ value: 'standard', label: 'Standard report' }] as const;

function duration(run: ResearchRunSummary, now: number): string {
  const end = run.finishedAt ? Date.parse(run.finishedAt) : now;
  return formatDuration((end - Date.parse(run.startedAt)) / 1000);
}

/** A queued (v2) run's state in words: where it is, not the app's and the service's words side by side. */
function stateText(run: ResearchRunSummary): string {
  if (run.state !== 'queued' || !run.remoteState || run.remoteState === 'queued') return run.state === 'queued' ? 'Queued at the service' : STATE_TEXT[run.state];
  return run.remoteState === 'running' ? 'Running at the service' : `At the service: ${run.remoteState}`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export function ResearchView() {
  const runs = useAppStore((s) => s.runs);
  const openReportId = useAppStore((s) => s.openReportId);
  const openReport = useAppStore((s) => s.openReport);
  const start = useAppStore((s) => s.startResearch);
  const cancel = useAppStore((s) => s.cancelResearch);
  const retry = useAppStore((s) => s.retryResearch);
  const error = useAppStore((s) => s.researchError);
  const loadRuns = useAppStore((s) => s.loadRuns);
  const [topic, setTopic] = useState('');
  const [preset, setPreset] = useState('standard');
  const [mode, setMode] = useState<ResearchMode>('wait');
  const [now, setNow] = useState(Date.now());
  const display = useDisplay();
  const setView = useAppStore((s) => s.setView);
  const credentialSet = useAppStore((s) => s.credentialStatus?.set);
  const owner = useAppStore((s) => s.credentialStatus?.owner === true);
  const local = useAppStore((s) => s.serviceStatus?.mode !== 'remote');
  const serviceUrl = useAppStore((s) => s.serviceStatus?.baseUrl ?? null);
  // Issue 47: on the embedded service the app is its owner; only a remote service asks for sign-in,
  // here at the action, and the run is not started to fail.
  const needsSignIn = credentialSet === false && !owner;
  const loadSchedules = useAppStore((s) => s.loadSchedules);
  const clearScheduleError = useAppStore((s) => s.clearScheduleError);
  const [scheduling, setScheduling] = useState<ScheduleDraft | null>(null);
  const schedule = (draft: ScheduleDraft): void => {
    clearScheduleError();
    setScheduling(draft);
  };

  useEffect(() => {
    void loadRuns();
  }, [loadRuns]);
  // The analyst's schedules, from each service they sign in to (none to ask for before that).
  useEffect(() => {
    if (!needsSignIn && serviceUrl) void loadSchedules();
  }, [loadSchedules, needsSignIn, serviceUrl]);
  const active = runs.some((run) => ['starting', 'running', 'queued'].includes(run.state));
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [active]);

  if (openReportId) return <ReportViewer runId={openReportId} onClose={() => openReport(null)} />;

  // A day whose runs were all written locally cost nothing bought: it says so rather than US$0.00.
  const costByDay = new Map<string, number | 'local'>();
  for (const run of runs) {
    if (run.costUsd === null) continue;
    const day = display.date(run.startedAt);
    const held = costByDay.get(day);
    if (run.costBasis === 'local') {
      if (held === undefined) costByDay.set(day, 'local');
      continue;
    }
    costByDay.set(day, (held === undefined || held === 'local' ? 0 : held) + run.costUsd);
  }

  return (
    <section className="research" aria-label="Research">
      <h1>Research</h1>
      <form
        className="research-form"
        onSubmit={(event) => {
          event.preventDefault();
          void start(topic.trim(), preset.trim() || 'standard', mode).then((ok) => ok && setTopic(''));
        }}
      >
        <input value={topic} onChange={(event) => setTopic(event.target.value)} placeholder="Topic, e.g. Quick commerce in Bengaluru" aria-label="Research topic" data-testid="research-topic" maxLength={500} />
        <select value={preset} onChange={(event) => setPreset(event.target.value)} aria-label="Preset" data-testid="research-preset" className="preset">
          {PRESETS.map((p) => (
            <option key={p.value} value={p.value}>
              {p.label}
            </option>
          ))}
        </select>
        <select value={mode} onChange={(event) => setMode(event.target.value as ResearchMode)} aria-label="How to run" data-testid="research-mode">
          <option value="wait">{local ? 'Wait for the report (a few seconds on this computer)' : 'Wait for the report (usually 30–90 s)'}</option>
          {/* Issue 47: the analyst picks how to wait; which API version runs it is the app's business. */}
          <option value="queue">Queue it and tell me when it is ready</option>
        </select>
        <button type="submit" disabled={topic.trim().length < 3 || needsSignIn} data-testid="research-start">
          Start research
        </button>
      </form>
      {needsSignIn ? (
        <p className="hint empty-state" data-testid="research-needs-credential">
          {local ? 'Research on the local service needs you to sign in, and the service did not make this app its owner — ' : `Research on ${serviceUrl ? hostOf(serviceUrl) : 'this service'} needs you to sign in — `}
          <button type="button" className="link" onClick={() => setView('settings')} data-testid="research-sign-in">
            Sign in
          </button>
        </p>
      ) : null}
      {error ? (
        <p className="notice" role="alert" data-testid="research-error">
          {error}
        </p>
      ) : null}
      <SchedulesList
        // "Schedule a topic…" takes the topic typed above, if any.
        onSchedule={needsSignIn ? null : () => schedule({ topic: topic.trim(), preset })}
        form={scheduling && !needsSignIn ? <ScheduleForm key={`${scheduling.topic}|${scheduling.preset}`} draft={scheduling} onClose={() => setScheduling(null)} /> : null}
        signInNeeded={
          needsSignIn ? (
            <p className="hint" data-testid="schedules-needs-credential">
              {`Schedules on ${local ? 'the local service' : serviceUrl ? hostOf(serviceUrl) : 'this service'} are kept for a signed-in analyst — `}
              <button type="button" className="link" onClick={() => setView('settings')}>
                Sign in
              </button>
            </p>
          ) : null
        }
      />
      <h2 className="runs-heading">Runs</h2>
      <table className="runs" data-testid="research-runs">
        <thead>
          <tr>
            <th>Topic</th>
            <th>State</th>
            <th>Started</th>
            <th>Duration</th>
            <th>Cost</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {runs.length === 0 ? (
            <tr>
              <td colSpan={6} className="hint">
                No research yet. Start a run above, or from a chat answer's suggestion.
              </td>
            </tr>
          ) : null}
          {runs.map((run) => (
            <tr key={run.id} data-testid="research-run" data-state={run.state} data-id={run.id}>
              <td>
                {run.topic}
                <div className="hint">
                  {PRESETS.find((p) => p.value === run.preset)?.label ?? run.preset} · {run.mode === 'queue' ? 'queued' : 'run while you waited'}
                  {run.scheduleId ? ' · scheduled' : ''}
                  {run.citationCount !== null ? ` · ${run.citationCount} citations` : ''}
                  {run.unseenChanges ? (
                    <>
                      {' '}
                      <span className="sf-badge" data-testid="run-changed">
                        What changed
                      </span>
                    </>
                  ) : null}
                </div>
                {run.error ? (
                  <div className="run-error" data-testid="run-error">
                    {run.error}
                    {needsCredential(run.errorCode) ? (
                      <>
                        {' '}
                        <button type="button" className="link" onClick={() => setView('settings')} data-testid="run-error-settings">
                          Open Settings
                        </button>
                      </>
                    ) : null}
                  </div>
                ) : null}
              </td>
              <td>
                <span className={`state state-${run.state}`} data-testid="run-state">
                  {stateText(run)}
                </span>
              </td>
              <td>
                <time dateTime={run.startedAt}>{display.dateTime(run.startedAt)}</time>
              </td>
              <td data-testid="run-duration">{duration(run, now)}</td>
              <td data-testid="run-cost">{runCost(run, display.cost)}</td>
              <td>
                <div className="run-actions">
                  {run.state === 'completed' ? (
                    <button type="button" onClick={() => openReport(run.id)} data-testid="open-report">
                      Open report
                    </button>
                  ) : null}
                  {['starting', 'running', 'queued'].includes(run.state) ? (
                    <button type="button" className="secondary" onClick={() => void cancel(run.id)} data-testid="cancel-run">
                      Cancel
                    </button>
                  ) : null}
                  {run.state === 'failed' || run.state === 'cancelled' ? (
                    <button type="button" className="secondary" onClick={() => void retry(run.id)} data-testid="retry-run">
                      Retry
                    </button>
                  ) : null}
                  {run.scheduleId || needsSignIn ? null : (
                    <button type="button" className="ghost" onClick={() => schedule({ topic: run.topic, preset: run.preset })} data-testid="schedule-run-topic" title={`Research “${run.topic}” every day or week`}>
                      Schedule…
                    </button>
                  )}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {costByDay.size > 0 ? (
        <section className="cost-totals" data-testid="cost-per-day">
          <h2>Cost per day</h2>
          <ul>
            {[...costByDay.entries()].map(([day, cost]) => (
              <li key={day}>
                {day}: <strong>{cost === 'local' ? COMPUTED_LOCALLY : display.cost(cost)}</strong>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </section>
  );
}
