import type { CredentialStatus, ServiceStatus } from '../../../shared/bridge-settings';
import { formatNumber } from '../../../shared/format';
import { useAppStore } from '../store/app-store';
import { clarity } from '../bridge/clarity';
import { useDisplay } from './use-display';

/**
 * Who the app calls the service as. Nothing until that is known: at first start the embedded
 * service's owner token exists only once the service has started, and "Anonymous" would be said
 * for a moment before "You (owner of the local service)".
 */
export function callerLabel(credential: CredentialStatus | null, status: ServiceStatus | null): string {
  if (!credential) return '';
  if (credential.set) return `Credential …${credential.last4}`;
  if (credential.owner) return 'You (owner of the local service)';
  if (status?.mode === 'local' && (status.state !== 'ready' || credential.judgedFor !== status.baseUrl)) return '';
  return 'Anonymous';
}

/**
 * While the ready service still loads its search index (it answers meanwhile from its database,
 * ranked by that database's own search): how far, in words. Nothing once the index is whole.
 */
export function indexingLabel(status: ServiceStatus | null): string {
  const indexing = status?.state === 'ready' ? status.indexing : undefined;
  if (!indexing) return '';
  // A remote service says only that it is warming (x-index-state), not how far.
  if (indexing.held === null) return 'The service is still indexing its signals — answers may rank differently until done';
  const held = indexing.total === null ? indexing.held : Math.min(indexing.held, indexing.total);
  const progress = indexing.total === null ? `Indexing signals (${formatNumber(held)} so far)` : `Indexing ${formatNumber(held)} of ${formatNumber(indexing.total)} signals`;
  return `${progress} — answers may rank differently until done`;
}

export function StatusBar({ retryInS }: { retryInS: number }) {
  const status = useAppStore((s) => s.serviceStatus);
  const credential = useAppStore((s) => s.credentialStatus);
  const setServiceStatus = useAppStore((s) => s.setServiceStatus);
  const display = useDisplay();
  const down = status?.state === 'unreachable' || status?.state === 'error';
  const hostLost = useAppStore((s) => s.hostLost);
  const indexing = indexingLabel(status);
  const service = !status
    ? 'Connecting…'
    : status.mode === 'local'
      ? `Local demo service — synthetic sample data${status.baseUrl ? ` (${status.baseUrl})` : ''}`
      : `Remote: ${status.baseUrl}`;
  return (
    <footer className="status-bar" data-testid="status-bar">
      {hostLost ? (
        <span className="state-down" role="alert" data-testid="host-lost">
          The app host stopped at {display.time(hostLost.since)} (it was closed or is restarting). Reconnecting…
          {hostLost.attempts > 6 ? ' If it does not come back, start it again (npm start or npm run web) and open the address it prints.' : ''}
        </span>
      ) : null}
      <span className={`dot dot-${hostLost ? 'unreachable' : (status?.state ?? 'starting')}`} aria-hidden="true" />
      <span data-testid="service-label">{service}</span>
      <span hidden={hostLost !== null} data-testid="service-state" className={down ? 'state-down' : undefined} role={down ? 'alert' : undefined}>
        {status ? (status.state === 'starting' ? 'connecting' : status.state) : ''}
        {status?.detail ? ` — ${status.detail}` : ''}
        {down ? ` Last answer: ${status?.lastSuccessAt ? display.dateTime(status.lastSuccessAt) : 'never'}.` : ''}
        {down && status?.nextAttemptAt ? ` Trying again at ${display.time(status.nextAttemptAt)}.` : ''}
      </span>
      {indexing && !hostLost ? (
        <span className="service-indexing" role="status" data-testid="service-indexing">
          {indexing}
        </span>
      ) : null}
      {down ? (
        <button type="button" className="link" onClick={() => void clarity().invoke('service.retry').then((r) => r.ok && setServiceStatus(r.value))} data-testid="service-retry">
          Retry now
        </button>
      ) : null}
      <span className="spacer" />
      {retryInS > 0 ? (
        <span className="rate-limited" data-testid="rate-countdown">Rate limited: ask again in {retryInS} s</span>
      ) : status?.rateLimitRemaining !== null && status?.rateLimitRemaining !== undefined ? (
        <span data-testid="rate-remaining">{status.rateLimitRemaining} requests left this minute</span>
      ) : null}
      {credential?.set && credential.rejected ? (
        // The service refused the credential: asking and health go on anonymously (#14).
        <span className="credential-rejected" role="status" title={credential.rejected.message} data-testid="credential-rejected">
          Credential …{credential.last4} invalid or expired — renew it in Settings
        </span>
      ) : (
        <span data-testid="caller">{callerLabel(credential, status)}</span>
      )}
      <span>{clarity().host === 'browser' ? 'Browser host' : 'Desktop'}</span>
    </footer>
  );
}
