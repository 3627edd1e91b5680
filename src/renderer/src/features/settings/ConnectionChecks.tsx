/**
 * Settings' honest view of the connection (issue #16): the service in use with its own
 * connecting / unreachable / connected state and a retry, and a check of the stored credential.
 */
import { useState } from 'react';
import type { CredentialCheck } from '../../../../shared/bridge-contract';
import { clarity } from '../../bridge/clarity';
import { useDisplay } from '../../app/use-display';
import { useAppStore } from '../../store/app-store';

export function ServiceState() {
  const status = useAppStore((s) => s.serviceStatus);
  const setServiceStatus = useAppStore((s) => s.setServiceStatus);
  const display = useDisplay();
  const [testing, setTesting] = useState(false);
  if (!status) return null;
  const where = status.baseUrl ?? (status.mode === 'local' ? 'the local service' : 'the service');
  const test = async (): Promise<void> => {
    setTesting(true);
    const result = await clarity().invoke('service.retry');
    if (result.ok) setServiceStatus(result.value);
    setTesting(false);
  };
  const down = status.state === 'unreachable' || status.state === 'error';
  return (
    <div className={`service-state-line${down ? ' notice' : ''}`} role={down ? 'alert' : 'status'} data-testid="settings-service-state" data-state={status.state}>
      {testing || status.state === 'starting' ? (
        <span>Connecting to {where}… {status.detail && !status.detail.startsWith('Connecting') ? status.detail : ''}</span>
      ) : down ? (
        <span>
          Cannot reach {where}: {status.detail ?? 'no answer'}. Last answer: {status.lastSuccessAt ? display.dateTime(status.lastSuccessAt) : 'never'}.
          {status.nextAttemptAt ? ` The app tries again on its own at ${display.time(status.nextAttemptAt)}.` : ''}
        </span>
      ) : (
        <span>Connected to {where}{status.lastSuccessAt ? `; it last answered at ${display.time(status.lastSuccessAt)}` : ''}.</span>
      )}{' '}
      {/* Issue 47: one connection test (Settings › Network); here only Retry, for a service that is down. */}
      {down || testing ? (
        <button type="button" className="secondary" onClick={() => void test()} disabled={testing} data-testid="service-test">
          Retry
        </button>
      ) : null}
    </div>
  );
}

/** "Test credential", and the same check right after a credential is saved. */
export function useCredentialCheck(): { check: CredentialCheck | null; checking: boolean; run(): Promise<void>; clear(): void } {
  const [check, setCheck] = useState<CredentialCheck | null>(null);
  const [checking, setChecking] = useState(false);
  return {
    check,
    checking,
    clear: () => setCheck(null),
    async run() {
      setChecking(true);
      setCheck(null);
      const result = await clarity().invoke('credentials.test');
      setCheck(result.ok ? result.value : { verdict: 'none', message: result.error.message });
      setChecking(false);
    },
  };
}

export function CredentialCheckLine({ check, checking }: { check: CredentialCheck | null; checking: boolean }) {
  if (checking) return <p className="hint" role="status">Asking the service whether it accepts this credential…</p>;
  if (!check) return null;
  return (
    <p className={check.verdict === 'accepted' ? 'hint ok-text' : 'notice'} role={check.verdict === 'accepted' ? 'status' : 'alert'} data-testid="credential-check" data-verdict={check.verdict}>
      {check.message}
    </p>
  );
}
