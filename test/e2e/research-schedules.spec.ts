/**
 * Issue 46 item 5 in the browser host: a research schedule on the service runs now, finds what
 * changed since the analyst's last run of the topic, and the app announces it (the service's
 * `research.changed`): a count on the Research navigation entry and a notice, the run marked in
 * the list; opening its report (which starts with what changed) clears the count, also after a reload.
 */
import { expect, ResearchPage, serviceUrlOf, test, tokenFor } from './fixtures';

const TOPIC = 'Quick commerce';

test('a schedule run now with a change shows a badge on Research; opening the report clears it', async ({ page, apps, chat, settings }, testInfo) => {
  // Live arrivals four times a second, so the topic has news soon after a run; schedules checked every second.
  const app = await apps.start({ serviceArgs: ['--research-ms=500', '--replay-sample', '--live-ms=250'], scheduleCheckMs: 1_000 });
  const research = new ResearchPage(page);
  await chat.open(app);
  const token = await tokenFor(app, 'scheduler@example.com', { tier: 'team' });
  await settings.saveCredential(token);

  // The analyst's own run of the topic: what the scheduled run compares with.
  const baseline = await research.start(TOPIC);
  await expect(baseline.root).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
  await expect(research.navResearchChanged).toHaveCount(0);

  // The analyst's weekly schedule of the topic, on the service, run now (the API, as an integration would).
  const service = await serviceUrlOf(page);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const created = await fetch(`${service}/api/v2/research/schedules`, { method: 'POST', headers, body: JSON.stringify({ topic: TOPIC, every: 'weekly' }) });
  expect(created.status).toBe(201);
  const schedule = (await created.json()) as { id: string };
  // This week's news: the live feed publishes something about the topic after the analyst's run…
  const since = new Date().toISOString();
  await chat.goTo('chat');
  await expect
    .poll(async () => {
      const page = (await (await fetch(`${service}/api/v1/discover?q=${encodeURIComponent(TOPIC)}&since=${encodeURIComponent(since)}&limit=5`, { headers })).json()) as { items?: unknown[] };
      return page.items?.length ?? 0;
    }, { timeout: 60_000, intervals: [2_000] })
    .toBeGreaterThan(0);
  // …then the schedule runs now (once: runs count toward the research limit) and finds it.
  const queued = (await (await fetch(`${service}/api/v2/research/schedules/${schedule.id}/run`, { method: 'POST', headers, body: '{}' })).json()) as { status_url: string };
  await expect
    .poll(async () => {
      const run = (await (await fetch(new URL(queued.status_url, service), { headers })).json()) as { status: string; changes: Record<string, unknown> | null };
      return run.status === 'completed' ? Object.values(run.changes ?? {}).some((list) => Array.isArray(list) && list.length > 0) : run.status;
    }, { timeout: 30_000 })
    .toBe(true);

  // The app picks the run up from the schedule: a count on Research while the analyst is in Chat, and a notice.
  await expect(research.navResearchChanged).toHaveText('1', { timeout: 30_000 });
  await expect(research.navResearchChanged).toHaveAccessibleName('1 scheduled report with changes');
  await expect(research.appNotice.filter({ hasText: `What changed: ${TOPIC}` })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('research-changed-badge.png') });

  await research.goTo('research');
  const scheduled = research.latestRun();
  await expect(scheduled.root).toHaveAttribute('data-state', 'completed');
  await expect(scheduled.root).toContainText('scheduled');
  await expect(scheduled.changed).toHaveText('What changed');
  await scheduled.openReport.click();
  await expect(research.viewer.sectionHeadings.first()).toHaveText(/^What changed since \d{1,2} \w{3} \d{4}$/);
  // Seen: the count and the mark go, and stay gone after a reload.
  await expect(research.navResearchChanged).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('service-state')).toHaveText(/^ready/);
  await research.goTo('research');
  await expect(research.runs.first()).toHaveAttribute('data-state', 'completed');
  await expect(research.runs.first().getByTestId('run-changed')).toHaveCount(0);
  await expect(research.navResearchChanged).toHaveCount(0);
});
