/**
 * Settings › Sources (issue 47): the hosts on the analyst's private network they allowed the
 * embedded service to fetch sources from, each withdrawable. Withdrawing restarts the local
 * service without that host; its sources then fail to fetch and say why.
 */
import { useEffect, useState } from 'react';
import { clarity } from '../../bridge/clarity';
import { useAppStore } from '../../store/app-store';

export function SourceHostsSettings() {
  const [hosts, setHosts] = useState<string[] | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const setView = useAppStore((s) => s.setView);

  useEffect(() => {
    void clarity()
      .invoke('settings.get')
      .then((result) => result.ok && setHosts(result.value.sourceHosts ?? []));
  }, []);

  const withdraw = async (host: string): Promise<void> => {
    setBusy(host);
    setMessage(null);
    const result = await clarity().invoke('sources.withdrawHost', { host });
    setBusy(null);
    if (result.ok) {
      setHosts(result.value.sourceHosts ?? []);
      setMessage(`${host} is no longer fetched from this computer.`);
    } else setMessage(result.error.message);
  };

  return (
    <fieldset data-testid="settings-sources">
      <legend>Sources</legend>
      <p className="hint">
        The feeds the app reads are listed under{' '}
        <button type="button" className="link" onClick={() => setView('sources')}>
          Sources
        </button>
        . Hosts on your private network (an intranet newsroom, a server at your desk) are fetched by the local service only after you say yes to each one; they are listed here.
      </p>
      {hosts === null ? null : hosts.length === 0 ? (
        <p className="hint" data-testid="source-hosts-empty">
          No private host is allowed: the local service fetches public addresses only.
        </p>
      ) : (
        <ul className="source-hosts" data-testid="source-hosts">
          {hosts.map((host) => (
            <li key={host} data-testid="source-host" data-host={host}>
              <code>{host}</code>{' '}
              <button type="button" className="secondary" disabled={busy !== null} onClick={() => void withdraw(host)} data-testid="source-host-withdraw">
                {busy === host ? 'Withdrawing…' : 'Withdraw'}
              </button>
            </li>
          ))}
        </ul>
      )}
      {message ? (
        <p className="hint" role="status" data-testid="source-hosts-message">
          {message}
        </p>
      ) : null}
    </fieldset>
  );
}
