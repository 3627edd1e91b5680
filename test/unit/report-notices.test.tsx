/**
 * "Report ready" notices, one per report (analyst defect 1): a scheduled run and the analyst's own
 * run of the same topic both completing, or the same completed run pushed twice, leave one notice
 * in the page, whose Open goes to the newest run; other notices (the analyst's data) stay.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ClarityBridge } from '../../src/shared/bridge-contract';
import type { ResearchRunSummary } from '../../src/shared/research';
import { setBridgeForTests } from '../../src/renderer/src/bridge/clarity';
import { useAppStore } from '../../src/renderer/src/store/app-store';

afterEach(() => {
  setBridgeForTests(null);
  useAppStore.setState({ notices: [], runs: [] });
});

function run(id: string, topic: string, state: ResearchRunSummary['state'], extra: Partial<ResearchRunSummary> = {}): ResearchRunSummary {
  return {
    id,
    topic,
    preset: 'standard',
    mode: 'wait',
    state,
    remoteState: null,
    startedAt: '2026-12-07T10:00:00.000Z',
    finishedAt: state === 'completed' ? '2026-12-07T10:00:05.000Z' : null,
    costUsd: 0,
    citationCount: state === 'completed' ? 6 : null,
    error: null,
    remoteId: null,
    statusUrl: null,
    reportUrl: null,
    serviceUrl: 'http://127.0.0.1:1',
    ...extra,
  };
}

/** The renderer's store connected to a bridge whose `research.updated` pushes the test sends. */
function connect(): (run: ResearchRunSummary) => void {
  let pushed: ((run: ResearchRunSummary) => void) | null = null;
  const bridge: ClarityBridge = {
    host: 'browser',
    invoke: (async () => ({ ok: true, value: null })) as ClarityBridge['invoke'],
    startStream: async () => ({ ok: true, value: null }),
    abortStream: async () => undefined,
    onStreamMessage: () => () => undefined,
    onPush: ((channel: string, listener: (run: ResearchRunSummary) => void) => {
      if (channel === 'research.updated') pushed = listener;
      return () => undefined;
    }) as ClarityBridge['onPush'],
  };
  setBridgeForTests(bridge);
  useAppStore.getState().connectResearch();
  return (next) => pushed!(next);
}

describe('report-ready notices', () => {
  it('a scheduled run and the analyst’s run of one topic give one notice, opening the newest', () => {
    const push = connect();
    useAppStore.setState({ notices: [{ id: 'data-1', text: 'Your library was moved aside', sticky: true }] });
    push(run('own', 'Quick commerce in Bengaluru', 'running'));
    push(run('sched', 'Quick commerce in Bengaluru ', 'running', { scheduleId: 's1' }));
    push(run('sched', 'Quick commerce in Bengaluru ', 'completed', { scheduleId: 's1' }));
    push(run('own', 'Quick commerce in Bengaluru', 'completed'));
    const { notices } = useAppStore.getState();
    expect(notices.map((n) => n.text)).toEqual(['Your library was moved aside', 'Report ready: Quick commerce in Bengaluru']);
    expect(notices[1]!.runId).toBe('own');
  });

  it('the same completed run pushed again is still one notice; another topic gets its own', () => {
    const push = connect();
    push(run('a', 'Zudio in the south', 'completed'));
    useAppStore.setState({ runs: [] }); // main's list reloaded: the run is not known as completed
    push(run('a', 'Zudio in the south', 'completed'));
    push(run('b', 'Tanishq in Kerala', 'completed'));
    expect(useAppStore.getState().notices.map((n) => [n.text, n.runId])).toEqual([
      ['Report ready: Zudio in the south', 'a'],
      ['Report ready: Tanishq in Kerala', 'b'],
    ]);
  });
});
