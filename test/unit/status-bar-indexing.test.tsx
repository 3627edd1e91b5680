/**
 * While the local service answers but still loads its search index (issue 48: it listens first,
 * answering from its database meanwhile), the status bar says so in words, with how far it is;
 * the words go once the index is whole. Not said while the service is still starting or is down.
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClarityBridge, ServiceStatus } from '../../src/shared/bridge-contract';
import { indexingLabel, StatusBar } from '../../src/renderer/src/app/StatusBar';
import { setBridgeForTests } from '../../src/renderer/src/bridge/clarity';
import { useAppStore } from '../../src/renderer/src/store/app-store';

const starting: ServiceStatus = { mode: 'local', baseUrl: null, state: 'starting', synthetic: true, detail: 'Starting the local service…', rateLimitRemaining: null, retryAt: null };
const ready: ServiceStatus = { ...starting, baseUrl: 'http://127.0.0.1:41234', state: 'ready', detail: undefined };

afterEach(() => {
  cleanup();
  setBridgeForTests(null);
  useAppStore.setState({ serviceStatus: null, credentialStatus: null });
});

describe('the status bar while the service loads its index', () => {
  it('says how many signals are indexed of how many, and that answers may rank differently', () => {
    expect(indexingLabel({ ...ready, indexing: { held: 40_000, total: 120_000 } })).toBe('Indexing 40,000 of 1,20,000 signals — answers may rank differently until done');
    // Not yet counted: how many so far.
    expect(indexingLabel({ ...ready, indexing: { held: 5_000, total: null } })).toBe('Indexing signals (5,000 so far) — answers may rank differently until done');
    // Never more held than the total said (a live arrival while warming).
    expect(indexingLabel({ ...ready, indexing: { held: 120_004, total: 120_000 } })).toBe('Indexing 1,20,000 of 1,20,000 signals — answers may rank differently until done');
    // A remote service says only that it is warming (x-index-state), not how far.
    expect(indexingLabel({ ...ready, mode: 'remote', indexing: { held: null, total: null } })).toBe('The service is still indexing its signals — answers may rank differently until done');
    expect(indexingLabel(ready)).toBe('');
    expect(indexingLabel({ ...starting, indexing: { held: 0, total: 100 } })).toBe('');
    expect(indexingLabel({ ...ready, state: 'unreachable', indexing: { held: 10, total: 100 } })).toBe('');
  });

  it('shows the words beside the ready state while warming, and drops them once the index is whole', () => {
    setBridgeForTests({ host: 'browser' } as ClarityBridge);
    useAppStore.setState({ serviceStatus: starting });
    render(<StatusBar retryInS={0} />);
    expect(screen.queryByTestId('service-indexing')).toBeNull();
    act(() => useAppStore.setState({ serviceStatus: { ...ready, indexing: { held: 20_000, total: 120_000 } } }));
    expect(screen.getByTestId('service-state').textContent).toBe('ready');
    expect(screen.getByRole('status').textContent).toBe('Indexing 20,000 of 1,20,000 signals — answers may rank differently until done');
    act(() => useAppStore.setState({ serviceStatus: { ...ready, indexing: { held: 90_000, total: 120_000 } } }));
    expect(screen.getByTestId('service-indexing').textContent).toMatch(/^Indexing 90,000 of 1,20,000 signals/);
    act(() => useAppStore.setState({ serviceStatus: ready }));
    expect(screen.queryByTestId('service-indexing')).toBeNull();
  });
});
