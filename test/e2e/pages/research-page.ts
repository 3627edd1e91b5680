/** Research: start a run (v1 held by main, or queued v2), the runs list, and the report viewer. */
import type { Locator } from '@playwright/test';
import { AppShell } from './app-shell';

export class ResearchPage extends AppShell {
  get topic(): Locator {
    return this.page.getByTestId('research-topic');
  }
  get mode(): Locator {
    return this.page.getByTestId('research-mode');
  }
  get startButton(): Locator {
    return this.page.getByTestId('research-start');
  }
  get runsList(): Locator {
    return this.page.getByTestId('research-runs');
  }
  get runs(): Locator {
    return this.page.getByTestId('research-run');
  }
  /** The newest run (the list shows newest first). */
  latestRun(): ResearchRun {
    return new ResearchRun(this.runs.first());
  }
  get costPerDay(): Locator {
    return this.page.getByTestId('cost-per-day');
  }
  get viewer(): ReportViewer {
    return new ReportViewer(this.page.getByTestId('report-viewer'));
  }
  /** Two runs of a topic side by side (opened from a changed report's viewer). */
  get compare(): ReportCompare {
    return new ReportCompare(this.page.getByTestId('report-compare'));
  }

  /** "Schedule…" beside Start research (schedules the topic typed there). */
  get scheduleButton(): Locator {
    return this.page.getByTestId('research-schedule');
  }
  get scheduleForm(): ScheduleForm {
    return new ScheduleForm(this.page.getByTestId('schedule-form'));
  }
  /** The Schedules section: the analyst's schedules, the plan's cap and the research limit. */
  get schedulesSection(): Locator {
    return this.page.getByTestId('research-schedules');
  }
  get schedulesLimits(): Locator {
    return this.page.getByTestId('schedules-limits');
  }
  get schedules(): Locator {
    return this.page.getByTestId('schedule');
  }
  schedule(topic: string): ScheduleCard {
    return new ScheduleCard(this.schedules.filter({ has: this.page.getByTestId('schedule-topic-text').getByText(topic, { exact: true }) }));
  }

  /** Goes to Research and schedules `topic` from the form's "Schedule…" (time: HH:MM in the display zone). */
  async scheduleTopic(topic: string, options: { every: 'daily' | 'weekly'; time?: string }): Promise<ScheduleForm> {
    await this.goTo('research');
    await this.topic.fill(topic);
    await this.scheduleButton.click();
    const form = this.scheduleForm;
    await form.every(options.every).check();
    if (options.time) await form.time.fill(options.time);
    await form.create.click();
    return form;
  }

  /** Goes to Research and starts a run on `topic` (`queue` picks the v2 queued mode). */
  async start(topic: string, options: { mode?: 'queue' } = {}): Promise<ResearchRun> {
    await this.goTo('research');
    await this.topic.fill(topic);
    if (options.mode) await this.mode.selectOption(options.mode);
    await this.startButton.click();
    return this.latestRun();
  }
}

/** "Schedule research": topic, how often, an optional time, the schedule in words. */
export class ScheduleForm {
  constructor(readonly root: Locator) {}

  get topic(): Locator {
    return this.root.getByTestId('schedule-topic');
  }
  every(every: 'daily' | 'weekly'): Locator {
    return this.root.getByTestId(`schedule-every-${every}`);
  }
  get time(): Locator {
    return this.root.getByTestId('schedule-time');
  }
  /** "Every week on Monday at 09:00 IST, first on …". */
  get preview(): Locator {
    return this.root.getByTestId('schedule-preview');
  }
  get create(): Locator {
    return this.root.getByTestId('schedule-create');
  }
  /** A refusal said at the action (the plan's cap, the research limit). */
  get error(): Locator {
    return this.root.getByTestId('schedule-error');
  }
}

/** One of the analyst's schedules. */
export class ScheduleCard {
  constructor(readonly root: Locator) {}

  get every(): Locator {
    return this.root.getByTestId('schedule-every-text');
  }
  get nextRun(): Locator {
    return this.root.getByTestId('schedule-next-run');
  }
  /** Carries `data-state` of the last run (`none` before the first). */
  get lastRun(): Locator {
    return this.root.getByTestId('schedule-last-run');
  }
  get openReport(): Locator {
    return this.root.getByTestId('schedule-open-report');
  }
  get runNow(): Locator {
    return this.root.getByTestId('schedule-run-now');
  }
  get delete(): Locator {
    return this.root.getByTestId('schedule-delete');
  }
  get confirmDelete(): Locator {
    return this.root.getByTestId('schedule-delete-yes');
  }
  get confirm(): Locator {
    return this.root.getByTestId('schedule-delete-confirm');
  }
  /** "Edit": how often and when, changed in place. */
  get edit(): Locator {
    return this.root.getByTestId('schedule-edit-open');
  }
  get editForm(): Locator {
    return this.root.getByTestId('schedule-edit');
  }
  editEvery(every: 'daily' | 'weekly'): Locator {
    return this.root.getByTestId(`schedule-edit-every-${every}`);
  }
  get editTime(): Locator {
    return this.root.getByTestId('schedule-edit-time');
  }
  get editPreview(): Locator {
    return this.root.getByTestId('schedule-edit-preview');
  }
  get editSave(): Locator {
    return this.root.getByTestId('schedule-edit-save');
  }
}

/** One run of the list; its `root` carries `data-state`: queued, running, completed or failed. */
export class ResearchRun {
  constructor(readonly root: Locator) {}

  get duration(): Locator {
    return this.root.getByTestId('run-duration');
  }
  get error(): Locator {
    return this.root.getByTestId('run-error');
  }
  get retry(): Locator {
    return this.root.getByTestId('retry-run');
  }
  get openReport(): Locator {
    return this.root.getByTestId('open-report');
  }
  /** "Schedule…": opens the schedule form with this run's topic. */
  get scheduleThis(): Locator {
    return this.root.getByTestId('schedule-run-topic');
  }
  /** "What changed": a scheduled run with changes whose report is not opened yet. */
  get changed(): Locator {
    return this.root.getByTestId('run-changed');
  }
  /** The elapsed time shown, in whatever unit it shows (digits only). */
  async durationValue(): Promise<number> {
    return Number((await this.duration.innerText()).replace(/\D/g, ''));
  }
}

export class ReportViewer {
  constructor(readonly root: Locator) {}

  get meta(): Locator {
    return this.root.getByTestId('report-meta');
  }
  get citationCount(): Locator {
    return this.root.getByTestId('report-citation-count');
  }
  get cost(): Locator {
    return this.root.getByTestId('report-cost');
  }
  get toc(): Locator {
    return this.root.getByTestId('report-toc');
  }
  get activeTocEntry(): Locator {
    return this.root.locator('.toc li.active');
  }
  get body(): Locator {
    return this.root.getByTestId('report-body');
  }
  get chips(): Locator {
    return this.root.getByTestId('citation-chip');
  }
  get saveButton(): Locator {
    return this.root.getByTestId('save-report');
  }
  /** "Saved to the library." */
  get saved(): Locator {
    return this.root.getByTestId('report-saved');
  }
  /** "N of M sentences supported". */
  get verified(): Locator {
    return this.root.getByTestId('report-verified');
  }
  /** Opens the side-by-side view with the topic's previous run. */
  get compareButton(): Locator {
    return this.root.getByTestId('compare-runs');
  }
  /** The report's section headings, in order. */
  get sectionHeadings(): Locator {
    return this.body.locator('h2');
  }
  get charts(): Locator {
    return this.root.getByTestId('report-chart');
  }
  /** The number the citation count shows. */
  async citationCountValue(): Promise<number> {
    return Number((await this.citationCount.innerText()).match(/\d+/)![0]);
  }
}

/** Two runs side by side: blocks only the later run has are marked added, blocks it lost removed. */
export class ReportCompare {
  constructor(readonly root: Locator) {}

  get older(): Locator {
    return this.root.getByTestId('compare-older');
  }
  get newer(): Locator {
    return this.root.getByTestId('compare-newer');
  }
  get added(): Locator {
    return this.root.getByTestId('diff-added');
  }
  get summary(): Locator {
    return this.root.getByTestId('compare-summary');
  }
  get close(): Locator {
    return this.root.getByTestId('compare-close');
  }
}
