/**
 * The status bar's caller at first start (analyst defect 2): nothing is said until main has judged
 * who the app calls the ready local service as, so "Anonymous" never shows for a moment before
 * "You (owner of the local service)"; the status bar rendered from the store says the same.
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClarityBridge, CredentialStatus, ServiceStatus } from '../../src/shared/bridge-contract';
import { callerLabel, StatusBar } from '../../src/renderer/src/app/StatusBar';
import { setBridgeForTests } from '../../src/renderer/src/bridge/clarity';
import { useAppStore } from '../../src/renderer/src/store/app-store';

const URL_NOW = 'http://127.0.0.1:41234';
const starting: ServiceStatus = { mode: 'local', baseUrl: null, state: 'starting', synthetic: true, detail: 'Starting the local service…', rateLimitRemaining: null, retryAt: null };
const ready: ServiceStatus = { ...starting, baseUrl: URL_NOW, state: 'ready', detail: undefined };
const none: CredentialStatus = { set: false, last4: null, kind: null, presentAs: 'bearer', backend: 'keychain', backendDetail: 'GNOME Keyring', owner: false, judgedFor: null };

afterEach(() => {
  cleanup();
  setBridgeForTests(null);
  useAppStore.setState({ serviceStatus: null, credentialStatus: null });
});

describe('who the status bar says the app calls the service as', () => {
  it('says nothing while the local service starts, or until the caller is judged for the ready one', () => {
    expect(callerLabel(null, null)).toBe('');
    expect(callerLabel(none, starting)).toBe('');
    // Ready, but the status in hand was judged before the service started (no owner token then).
    expect(callerLabel(none, ready)).toBe('');
    expect(callerLabel({ ...none, judgedFor: 'http://127.0.0.1:1' }, ready)).toBe('');
    expect(callerLabel({ ...none, owner: true, judgedFor: URL_NOW }, ready)).toBe('You (owner of the local service)');
    // The owner token could not be had: Anonymous is then the truth, and said.
    expect(callerLabel({ ...none, judgedFor: URL_NOW }, ready)).toBe('Anonymous');
  });

  it('names a credential at once, and a remote service with none is Anonymous at once', () => {
    expect(callerLabel({ ...none, set: true, last4: 'x9Qz' }, starting)).toBe('Credential …x9Qz');
    expect(callerLabel(none, { ...starting, mode: 'remote', baseUrl: 'https://signals.example', synthetic: false })).toBe('Anonymous');
  });

  it('the rendered status bar never reads Anonymous on the way to owner', () => {
    setBridgeForTests({ host: 'browser' } as ClarityBridge);
    useAppStore.setState({ serviceStatus: starting, credentialStatus: none });
    render(<StatusBar retryInS={0} />);
    expect(screen.getByTestId('caller').textContent).toBe('');
    act(() => useAppStore.setState({ serviceStatus: ready }));
    expect(screen.getByTestId('caller').textContent).toBe('');
    act(() => useAppStore.setState({ credentialStatus: { ...none, owner: true, judgedFor: URL_NOW } }));
    expect(screen.getByTestId('caller').textContent).toBe('You (owner of the local service)');
  });
});
