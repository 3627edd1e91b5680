/** Research runs, the open report, and the app's notices ("report ready", data set aside). */
import type { DataNotice } from '../../../shared/bridge-contract';
import type { ServiceNotice } from '../../../shared/service-notices';
import { clarity } from '../bridge/clarity';
import type { ResearchSlice, SliceCreator } from './types';

type Notices = ResearchSlice['notices'];

/**
 * One notice per report: a run of a topic that already has a notice showing (a scheduled run and
 * the analyst's own run of it, or the same run pushed twice) replaces that notice, so two
 * identical "Report ready" lines never stack; Open goes to the newest run.
 */
export function withReportNotice(notices: Notices, runId: string, topic: string, text: string): Notices {
  const key = topic.trim().toLocaleLowerCase();
  const others = notices.filter((notice) => notice.runId !== runId && notice.topic !== key);
  return [...others, { id: `${runId}-ready`, text, runId, topic: key }];
}

export const createResearchSlice: SliceCreator<ResearchSlice> = (set, get) => ({
  connectResearch() {
    return clarity().onPush('research.updated', (run) => {
      const previous = get().runs.find((r) => r.id === run.id);
      const runs = previous ? get().runs.map((r) => (r.id === run.id ? run : r)) : [run, ...get().runs];
      const ready = run.state === 'completed' && previous?.state !== 'completed';
      // A scheduled run with changes (the service's research.changed): said as what it is.
      const text = run.unseenChanges ? `What changed: ${run.topic} (scheduled run)` : `Report ready: ${run.topic}`;
      set({ runs, ...(ready ? { notices: withReportNotice(get().notices, run.id, run.topic, text) } : {}) });
      // A schedule's new run (its period came, or "Run now"): the schedule's last and next run moved.
      if (!previous && run.scheduleId && get().schedules) void get().loadSchedules();
    });
  },
  connectDataNotices() {
    const show = (notice: DataNotice): void => {
      if (get().notices.some((n) => n.id === notice.id)) return;
      set({ notices: [...get().notices, { id: notice.id, text: notice.text, sticky: true }] });
    };
    const unsubscribe = clarity().onPush('data.notice', show);
    void clarity()
      .invoke('data.notices')
      .then((result) => {
        if (result.ok) for (const notice of result.value) show(notice);
      });
    return unsubscribe;
  },
  connectServiceNotices() {
    const show = (notice: ServiceNotice): void => {
      // Issue 47: what the app handles itself is for integrators (Settings › Developer), not the page.
      if (notice.acknowledged || notice.handledByApp || get().notices.some((n) => n.id === notice.id)) return;
      set({ notices: [...get().notices, { id: notice.id, text: notice.what, sticky: true, service: notice }] });
    };
    const unsubscribe = clarity().onPush('service.notice', show);
    void clarity()
      .invoke('notices.list')
      .then((result) => {
        if (result.ok) for (const notice of result.value) show(notice);
      });
    return unsubscribe;
  },
  runs: [],
  openReportId: null,
  notices: [],
  researchError: null,
  async loadRuns() {
    const result = await clarity().invoke('research.list');
    if (result.ok) set({ runs: result.value });
  },
  async startResearch(topic, preset = 'standard', mode = 'wait') {
    const result = await clarity().invoke('research.start', { topic, preset, mode });
    if (!result.ok) {
      set({ researchError: result.error.message });
      return false;
    }
    const known = get().runs.some((r) => r.id === result.value.id);
    set({ researchError: null, runs: known ? get().runs : [result.value, ...get().runs] });
    return true;
  },
  async cancelResearch(id) {
    const result = await clarity().invoke('research.cancel', { id });
    if (!result.ok) set({ researchError: result.error.message });
  },
  async retryResearch(id) {
    const result = await clarity().invoke('research.retry', { id });
    if (!result.ok) set({ researchError: result.error.message });
  },
  openReport: (id) => {
    set({ openReportId: id, selectedCitation: null });
    // Opening a scheduled run's report is seeing what changed: its badge goes (main pushes the run).
    if (id && get().runs.find((run) => run.id === id)?.unseenChanges) void clarity().invoke('research.markSeen', { id });
  },
  schedules: null,
  schedulesProblem: null,
  scheduleError: null,
  async loadSchedules() {
    const result = await clarity().invoke('research.schedules');
    if (result.ok) set({ schedules: result.value, schedulesProblem: null });
    else set({ schedulesProblem: result.error.message });
  },
  clearScheduleError: () => set({ scheduleError: null }),
  async createSchedule(request) {
    const result = await clarity().invoke('research.schedule', request);
    if (!result.ok) {
      set({ scheduleError: result.error.message });
      return false;
    }
    set({ scheduleError: null });
    await get().loadSchedules();
    return true;
  },
  async runSchedule(id) {
    const result = await clarity().invoke('research.runSchedule', { id });
    if (!result.ok) {
      set({ scheduleError: result.error.message });
      return false;
    }
    // The run is in the list at once (main pushes it too); the schedule's last run is now it.
    const known = get().runs.some((r) => r.id === result.value.id);
    set({ scheduleError: null, runs: known ? get().runs : [result.value, ...get().runs] });
    await get().loadSchedules();
    return true;
  },
  async updateSchedule(id, change) {
    const result = await clarity().invoke('research.updateSchedule', { id, ...change });
    if (!result.ok) {
      set({ scheduleError: result.error.message });
      return false;
    }
    const held = get().schedules;
    set({ scheduleError: null, schedules: held ? { ...held, schedules: held.schedules.map((schedule) => (schedule.id === id ? result.value : schedule)) } : held });
    return true;
  },
  async deleteSchedule(id) {
    const result = await clarity().invoke('research.deleteSchedule', { id });
    if (!result.ok) {
      set({ scheduleError: result.error.message });
      return false;
    }
    const held = get().schedules;
    set({ scheduleError: null, schedules: held ? { ...held, schedules: held.schedules.filter((schedule) => schedule.id !== id) } : held });
    return true;
  },
  dismissNotice: (id) => {
    const notice = get().notices.find((n) => n.id === id);
    // A service notice dismissed has been read: it is not shown again (Settings keeps it).
    if (notice?.service) void clarity().invoke('notices.acknowledge', { id });
    set({ notices: get().notices.filter((n) => n.id !== id) });
  },
});
