/**
 * Settings › Network and logs: the proxy and certificates in use for the service, a "Test
 * connection" that names the failing hop (DNS, proxy, TLS, HTTP), and the logs folder.
 * Self-contained: it talks to main through the desktop.* bridge methods only.
 */
import { useEffect, useState } from 'react';
import type { ConnectionTestReport, DesktopInfo } from '../../../../shared/desktop';
import { clarity } from '../../bridge/clarity';

const HOP_LABELS = { dns: 'DNS', connect: 'Connection', proxy: 'Proxy', tls: 'TLS', http: 'HTTP' } as const;

export function NetworkSettings({ serviceUrl }: { serviceUrl: string | null }) {
  const [info, setInfo] = useState<DesktopInfo | null>(null);
  const [report, setReport] = useState<ConnectionTestReport | null>(null);
  const [testing, setTesting] = useState(false);
  const [message, setMessage] = useState<string | null>(null);

  useEffect(() => {
    void clarity()
      .invoke('desktop.info')
      .then((result) => (result.ok ? setInfo(result.value) : setMessage(result.error.message)));
  }, [serviceUrl]);

  const test = async (): Promise<void> => {
    setTesting(true);
    setReport(null);
    setMessage(null);
    const result = await clarity().invoke('desktop.testConnection');
    setTesting(false);
    if (result.ok) setReport(result.value);
    else setMessage(result.error.message);
  };

  const openLogs = async (): Promise<void> => {
    const result = await clarity().invoke('desktop.openLogsFolder');
    if (result.ok && !result.value.opened) setMessage(`Logs are in ${result.value.path ?? 'the data folder'} (this host cannot open folders).`);
  };

  return (
    <fieldset data-testid="network-settings">
      <legend>Network and logs</legend>
      <dl className="network-facts">
        <dt>Proxy</dt>
        <dd data-testid="network-proxy">{info ? `${info.network.proxy} — from ${info.network.proxySource}` : '…'}</dd>
        <dt>Trusted certificates</dt>
        <dd data-testid="network-certificates">{info ? info.network.certificates.join(', ') : '…'}</dd>
        {info?.logsDir ? (
          <>
            <dt>Logs</dt>
            <dd data-testid="network-logs-dir">{info.logsDir}</dd>
          </>
        ) : null}
      </dl>
      {info?.network.warnings.map((warning) => (
        <p className="notice" role="alert" key={warning}>
          {warning}
        </p>
      ))}
      <div className="row">
        <button type="button" onClick={() => void test()} disabled={testing || !serviceUrl} data-testid="network-test">
          {testing ? 'Testing…' : 'Test connection'}
        </button>
        <button type="button" onClick={() => void openLogs()} data-testid="network-open-logs">
          Open logs folder
        </button>
      </div>
      {report ? (
        <div role="status" data-testid="network-report" data-ok={report.ok} data-failed-hop={report.failedHop ?? ''}>
          <p>{report.summary}</p>
          <ol className="hops">
            {report.hops.map((hop) => (
              <li key={hop.hop} data-hop={hop.hop} data-ok={hop.ok}>
                {hop.ok ? '✓' : '✗'} {HOP_LABELS[hop.hop]}: {hop.detail}
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      {message ? (
        <p className="hint" role="status" data-testid="network-message">
          {message}
        </p>
      ) : null}
    </fieldset>
  );
}
