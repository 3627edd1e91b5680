/** The answer component: chips and the sources list agree; links go through the bridge. */
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClarityBridge } from '../../src/shared/bridge-contract';
import { setBridgeForTests } from '../../src/renderer/src/bridge/clarity';
import { AnswerView } from '../../src/renderer/src/features/chat/AnswerView';
import { useAppStore, type TurnView } from '../../src/renderer/src/store/app-store';
import type { TurnAnswerState } from '../../src/shared/conversation';

const A = 'sig_aaaaaaaaaaaaaaaa';
const B = 'sig_bbbbbbbbbbbbbbbb';
const C = 'sig_cccccccccccccccc';

const invoked: Array<[string, unknown]> = [];
const bridge: ClarityBridge = {
  host: 'electron',
  invoke: (async (method: string, args: unknown) => {
    invoked.push([method, args]);
    return { ok: true, value: { opened: true } };
  }) as ClarityBridge['invoke'],
  startStream: async () => ({ ok: true, value: null }),
  abortStream: async () => undefined,
  onStreamMessage: () => () => undefined,
  onPush: () => () => undefined,
};

function answer(overrides: Partial<TurnAnswerState> = {}): TurnView {
  const state: TurnAnswerState = {
    text: `Growth is fast [${B}]. Stores opened [${A}]. Again [${B}]. See [source](https://retail.example/x).`,
    status: 'done',
    error: null,
    citations: [
      { id: A, title: 'Signal A', source_name: 'Source A', published_at: '2026-11-01T00:00:00Z', url: 'https://a.example/1' },
      { id: B, title: 'Signal B', source_name: 'Source B', published_at: '2026-10-01T00:00:00Z' },
      { id: C, title: 'Signal C, no marker', source_name: 'Source C', published_at: '2026-09-01T00:00:00Z' },
    ],
    confidence: 0.72,
    confidenceTrace: [0.4, 0.6, 0.72],
    promotion: null,
    ...overrides,
  };
  return { id: 'trn_1', question: 'q', status: state.status, answer: state, stored: true, updates: 4 };
}

beforeEach(() => {
  invoked.length = 0;
  setBridgeForTests(bridge);
  useAppStore.setState({ selectedCitation: null, activeStreamId: null });
});
afterEach(() => {
  cleanup();
  setBridgeForTests(null);
});

describe('AnswerView', () => {
  it('numbers chips by first appearance and matches each to a list entry', () => {
    render(<AnswerView turn={answer()} />);
    const chips = screen.getAllByTestId('citation-chip');
    expect(chips.map((chip) => [chip.dataset.cite, chip.textContent])).toEqual([
      [B, '1'],
      [A, '2'],
      [B, '1'],
    ]);
    const list = screen.getByTestId('citation-list');
    const entries = within(list).getAllByTestId('citation-entry');
    expect(entries.map((entry) => [entry.dataset.cite, entry.dataset.number])).toEqual([
      [B, '1'],
      [A, '2'],
    ]);
    expect(within(entries[0]!).getByText('Signal B')).toBeTruthy();
    expect(within(entries[0]!).getByTestId('citation-source').textContent).toBe('Source B');
    // A citation without a marker is listed after the answer, unnumbered.
    expect(screen.getByText('Signal C, no marker')).toBeTruthy();
    expect(screen.getByTestId('confidence').textContent).toBe('Confidence: high (72%)');
    expect(screen.getByTestId('confidence-trace').children).toHaveLength(3);
  });

  it('selects a citation when its chip is clicked', () => {
    render(<AnswerView turn={answer()} />);
    fireEvent.click(screen.getAllByTestId('citation-chip')[1]!);
    expect(useAppStore.getState().selectedCitation).toEqual({ turnId: 'trn_1', citationId: A, occurrence: 0 });
    // The second chip of B is B's second occurrence: the panel shows that sentence's span.
    fireEvent.click(screen.getAllByTestId('citation-chip')[2]!);
    expect(useAppStore.getState().selectedCitation).toEqual({ turnId: 'trn_1', citationId: B, occurrence: 1 });
  });

  it('opens links only through the bridge allow-list, never by navigating', async () => {
    render(<AnswerView turn={answer()} />);
    const link = screen.getByText('source');
    const event = new MouseEvent('click', { bubbles: true, cancelable: true });
    await act(async () => {
      link.dispatchEvent(event);
    });
    expect(event.defaultPrevented).toBe(true);
    expect(invoked).toEqual([['links.openExternal', { url: 'https://retail.example/x' }]]);
  });

  it('a link carrying a forged marker in its title is a link: the click is prevented and goes through the opener', async () => {
    render(<AnswerView turn={answer({ text: `<a href="https://x.example/login" title="[sig_0000000000000001]">log in</a> [${A}]` })} />);
    const link = screen.getByText('log in');
    expect(link.closest('[data-cite]')).toBeNull();
    const event = new MouseEvent('click', { bubbles: true, cancelable: true });
    await act(async () => {
      link.dispatchEvent(event);
    });
    expect(event.defaultPrevented).toBe(true);
    expect(useAppStore.getState().selectedCitation).toBeNull();
    expect(invoked).toEqual([['links.openExternal', { url: 'https://x.example/login' }]]);
  });

  it('only http(s) citation URLs become links in the sources list', () => {
    const hostile = ['javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,<script>alert(1)</script>', 'vbscript:msgbox(1)', 'clarity://settings', ' JAVASCRIPT:alert(1)'];
    const citations = [
      ...hostile.map((url, i) => ({ id: `sig_00000000000000e${i}`, title: `Hostile ${i}`, url })),
      { id: A, title: 'Fine', url: 'https://a.example/1' },
    ];
    render(<AnswerView turn={answer({ text: `Text [${A}].`, citations })} />);
    const hrefs = [...screen.getByTestId('answer').querySelectorAll('a[href]')].map((a) => a.getAttribute('href'));
    expect(hrefs).toEqual(['https://a.example/1']);
  });

  it('marks an incomplete answer, keeps its text and offers retry', () => {
    const retry = vi.fn(async () => undefined);
    useAppStore.setState({ retry });
    render(<AnswerView turn={answer({ status: 'incomplete', error: { code: 'network', message: 'The connection dropped.' } })} />);
    expect(screen.getByTestId('answer').dataset.status).toBe('incomplete');
    expect(screen.getByTestId('answer-body').textContent).toContain('Growth is fast');
    expect(screen.getByTestId('answer-error').textContent).toContain('The connection dropped.');
    fireEvent.click(screen.getByTestId('retry'));
    expect(retry).toHaveBeenCalledWith('trn_1');
  });
});

describe('conflicting figures (issue 30)', () => {
  it('flags the answer visibly with each figure and its source', () => {
    const conflicts = [
      { measure: 'app_rank', entity: 'Zepto', place: 'India', asOf: '2026-11-21', figures: [{ value: 49, citation: A, source: 'Google Play India shopping ranks' }, { value: 42, citation: B, source: 'Appfigures India' }], note: 'n' },
    ];
    render(<AnswerView turn={answer({ conflicts })} />);
    const flag = screen.getByTestId('conflict-flag');
    expect(flag.textContent).toContain('Sources disagree on 1 figure');
    expect(screen.getByTestId('conflict').textContent).toBe('Zepto — app rank, India, 21 Nov 2026: #49 (Google Play India shopping ranks) vs #42 (Appfigures India)');
  });

  it('flags a service without the extension from its "Sources disagree" section, and nothing otherwise', () => {
    render(<AnswerView turn={answer({ text: `Zepto runs 900 stores [${A}].\n\n### Sources disagree\n\n- A says 900 [${A}], B says 880 [${B}].` })} />);
    expect(screen.getByTestId('conflict-flag').textContent).toContain('Sources disagree');
    cleanup();
    render(<AnswerView turn={answer()} />);
    expect(screen.queryByTestId('conflict-flag')).toBeNull();
  });
});
