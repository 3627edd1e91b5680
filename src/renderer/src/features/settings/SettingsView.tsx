import { useEffect, useState } from 'react';
import type { CredentialPresentation } from '../../../../shared/bridge-contract';
import { clarity } from '../../bridge/clarity';
import { useAppStore } from '../../store/app-store';
import { CredentialCheckLine, ServiceState, useCredentialCheck } from './ConnectionChecks';
import { DeveloperKeys } from './DeveloperKeys';
import { DeveloperWebhooks } from './DeveloperWebhooks';
import { ServiceNotices } from './ServiceNotices';
import { ThemeSettings } from './ThemeSettings';
import { DisplaySettings } from './DisplaySettings';
import { NetworkSettings } from './NetworkSettings';
import { AnswerSettings } from './AnswerSettings';
import { SourceHostsSettings } from './SourceHostsSettings';
import { SharedPages } from './SharedPages';

const CREDENTIAL_NAMES = { 'api-key': 'An API key', jwt: 'A JWT', token: 'A token' } as const;

/**
 * Which backend writes answers, as the service named it on the latest answer (issue 28), and,
 * for a model not on the service's machine, that questions and cited signals leave it.
 */
function ComposerLine() {
  const composer = useAppStore((s) => s.turns.findLast((turn) => turn.answer?.composer)?.answer?.composer);
  let text: string;
  if (!composer) text = 'Answers: each answer names who wrote it. The embedded service composes them from the signals, with no model, unless Settings › Answers chooses a model.';
  else if (composer.backend === 'model' || composer.model) {
    const where =
      composer.local === false
        ? `It is not on the service's machine: your questions and the cited signals' text leave it for that model's API.`
        : composer.local === true
          ? 'It runs on the same machine as the service.'
          : '';
    text = `Answers are written by the model ${composer.model ?? '(unnamed)'}, every claim checked against its citations${composer.fallbackReason ? '; the latest answer fell back to the signals because the model failed' : ''}. ${where}`;
  } else text = 'Answers are composed from the signals by the service (no model), every claim checked against its citations.';
  return (
    <p className="hint" data-testid="settings-composer">
      {text}
    </p>
  );
}

export function SettingsView() {
  const notice = useAppStore((s) => s.settingsNotice);
  const status = useAppStore((s) => s.serviceStatus);
  const credential = useAppStore((s) => s.credentialStatus);
  const setCredentialStatus = useAppStore((s) => s.setCredentialStatus);
  const setServiceStatus = useAppStore((s) => s.setServiceStatus);
  const [mode, setMode] = useState<'local' | 'remote'>(status?.mode ?? 'local');
  const [baseUrl, setBaseUrl] = useState(status?.mode === 'remote' ? (status.baseUrl ?? '') : '');
  const [secret, setSecret] = useState('');
  const [presentAs, setPresentAs] = useState<CredentialPresentation>(credential?.presentAs ?? 'bearer');
  const [serviceMessage, setServiceMessage] = useState<string | null>(null);
  const [credentialMessage, setCredentialMessage] = useState<string | null>(null);
  const [devEmail, setDevEmail] = useState('');
  const [trustedHosts, setTrustedHosts] = useState('');
  const [trustedMessage, setTrustedMessage] = useState<string | null>(null);
  const [about, setAbout] = useState<string | null>(null);
  const credentialCheck = useCredentialCheck();

  useEffect(() => {
    void clarity()
      .invoke('settings.get')
      .then((result) => result.ok && setTrustedHosts(result.value.trustedHosts.join('\n')));
    void clarity()
      .invoke('settings.about')
      .then((result) => result.ok && setAbout(`${result.value.name} ${result.value.version}`));
  }, []);

  const saveTrustedHosts = async (): Promise<void> => {
    setTrustedMessage(null);
    const hosts = trustedHosts.split(/[\s,]+/).filter(Boolean);
    const result = await clarity().invoke('settings.setTrustedHosts', { hosts });
    if (result.ok) {
      setTrustedHosts(result.value.trustedHosts.join('\n'));
      setTrustedMessage(result.value.trustedHosts.length ? 'Saved.' : 'Saved: no other host is trusted.');
    } else setTrustedMessage(result.error.message);
  };

  useEffect(() => {
    if (credential) setPresentAs(credential.presentAs);
  }, [credential]);

  const saveService = async (): Promise<void> => {
    setServiceMessage(null);
    const result = await clarity().invoke('service.set', mode === 'local' ? { mode: 'local' } : { mode: 'remote', baseUrl });
    if (result.ok) {
      setServiceStatus(result.value);
      setServiceMessage(mode === 'local' ? 'Using the local service.' : `Using ${result.value.baseUrl}.`);
    } else setServiceMessage(result.error.message);
  };

  const saveCredential = async (): Promise<void> => {
    setCredentialMessage(null);
    const result = await clarity().invoke('credentials.set', { secret, presentAs });
    if (result.ok) {
      // SECURITY: the field is emptied at once; the renderer keeps only the status.
      setSecret('');
      setCredentialStatus(result.value);
      setCredentialMessage('Saved.');
      // A bad credential is found now, not at the first research run.
      await credentialCheck.run();
    } else setCredentialMessage(result.error.message);
  };

  const getDevelopmentToken = async (): Promise<void> => {
    setCredentialMessage(null);
    const result = await clarity().invoke('credentials.devToken', { email: devEmail });
    if (result.ok) {
      setCredentialStatus(result.value);
      setCredentialMessage('A development token from the local service is saved.');
      credentialCheck.clear();
    } else setCredentialMessage(result.error.message);
  };

  const clearCredential = async (): Promise<void> => {
    const result = await clarity().invoke('credentials.clear');
    if (result.ok) {
      setCredentialStatus(result.value);
      setCredentialMessage('Cleared.');
      credentialCheck.clear();
    } else setCredentialMessage(result.error.message);
  };

  return (
    <section className="settings" aria-label="Settings">
      <h1>Settings</h1>
      {notice ? (
        <p className="notice" role="alert" data-testid="settings-notice">
          {notice}
        </p>
      ) : null}
      <fieldset>
        <legend>Service</legend>
        <label>
          <input type="radio" name="mode" checked={mode === 'local'} onChange={() => setMode('local')} data-testid="service-local" />
          Local demo service (embedded, synthetic sample data, works offline)
        </label>
        <label>
          <input type="radio" name="mode" checked={mode === 'remote'} onChange={() => setMode('remote')} data-testid="service-remote" />
          Remote Retail Signal service
        </label>
        {mode === 'remote' ? (
          <input
            type="url"
            placeholder="https://retail-signal.example.com"
            value={baseUrl}
            onChange={(event) => setBaseUrl(event.target.value)}
            aria-label="Service base URL"
            data-testid="service-url"
          />
        ) : null}
        <div className="row">
          <button type="button" onClick={() => void saveService()} data-testid="service-save">
            Use this service
          </button>
          {serviceMessage ? <span className="hint" role="status">{serviceMessage}</span> : null}
        </div>
        <ServiceState />
        <ComposerLine />
      </fieldset>
      <AnswerSettings />
      <ThemeSettings />
      <DisplaySettings />
      <SourceHostsSettings />
      <SharedPages />
      <NetworkSettings serviceUrl={status?.baseUrl ?? null} />
      {/* Issue 47: what only an integrator needs, apart from what an analyst sets. */}
      <section className="settings-developer" aria-labelledby="settings-developer-title" data-testid="settings-developer">
        <h2 id="settings-developer-title">Developer</h2>
        <p className="hint">For connecting other tools and other services: credentials, trusted hosts, API keys, webhooks and the service&apos;s notices to integrators.</p>
        <fieldset>
          <legend>Credential</legend>
          <p className="hint" data-testid="credential-status">
            {credential?.set
              ? `${CREDENTIAL_NAMES[credential.kind ?? 'token']} ending in …${credential.last4} is set.`
              : credential?.owner
                ? 'Nothing to set: the local service knows this app as its owner, so research, follows, webhooks and API keys work as you. A credential is needed only for a remote service.'
                : 'No credential set: you ask anonymously.'}
          </p>
          {credential?.set && credential.rejected ? (
            <p className="notice" role="alert" data-testid="credential-rejected-notice">
              {credential.rejected.message}
            </p>
          ) : null}
          <p className={`hint backend backend-${credential?.backend ?? 'unknown'}`} data-testid="credential-backend">
            {credential ? `${credential.backend === 'keychain' ? 'Stored in the OS keychain.' : 'Not stored: session only.'} ${credential.backendDetail}` : ''}
          </p>
          <input
            type="password"
            autoComplete="off"
            placeholder="Paste a JWT or an API key (ck_…)"
            value={secret}
            onChange={(event) => setSecret(event.target.value)}
            aria-label="Credential"
            data-testid="credential-input"
          />
          <label>
            Send it as{' '}
            <select value={presentAs} onChange={(event) => setPresentAs(event.target.value as CredentialPresentation)} data-testid="credential-present-as">
              <option value="bearer">Authorization: Bearer</option>
              <option value="x-api-key">X-API-Key</option>
            </select>
          </label>
          <div className="row">
            <button type="button" onClick={() => void saveCredential()} disabled={secret.trim().length === 0} data-testid="credential-save">
              Save credential
            </button>
            <button type="button" className="secondary" onClick={() => void clearCredential()} disabled={!credential?.set} data-testid="credential-clear">
              Clear
            </button>
            <button type="button" className="secondary" onClick={() => void credentialCheck.run()} disabled={!credential?.set || credentialCheck.checking} data-testid="credential-test">
              Test credential
            </button>
            {credentialMessage ? <span className="hint" role="status">{credentialMessage}</span> : null}
          </div>
          <CredentialCheckLine check={credentialCheck.check} checking={credentialCheck.checking} />
          {status?.mode === 'local' ? (
            <div className="row">
              <input
                type="email"
                placeholder="you@example.com"
                value={devEmail}
                onChange={(event) => setDevEmail(event.target.value)}
                aria-label="Email for a development token"
                data-testid="dev-token-email"
              />
              <button type="button" className="secondary" onClick={() => void getDevelopmentToken()} disabled={devEmail.trim().length === 0} data-testid="dev-token-get">
                Get a development token
              </button>
            </div>
          ) : null}
        </fieldset>
        <fieldset>
          <legend>Trusted hosts</legend>
          <p className="hint">
            Some services put research reports or status pages on another host. The app follows such links only to the hosts listed here (one per line,
            https), and sends them your credential; every other host is refused.
          </p>
          <textarea
            rows={3}
            placeholder="https://reports.retail-signal.example.com"
            value={trustedHosts}
            onChange={(event) => setTrustedHosts(event.target.value)}
            aria-label="Trusted hosts"
            data-testid="trusted-hosts"
          />
          <div className="row">
            <button type="button" onClick={() => void saveTrustedHosts()} data-testid="trusted-hosts-save">
              Save trusted hosts
            </button>
            {trustedMessage ? <span className="hint" role="status" data-testid="trusted-hosts-message">{trustedMessage}</span> : null}
          </div>
        </fieldset>
        <DeveloperKeys />
        <DeveloperWebhooks />
        <ServiceNotices />
      </section>
      {about ? <p className="hint" data-testid="app-version">{about}</p> : null}
    </section>
  );
}
