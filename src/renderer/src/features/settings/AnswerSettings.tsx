/**
 * Settings › Answers (issue 28): who writes the embedded service's answers — the extractive
 * composer (default, offline) or a model behind any OpenAI-compatible chat-completions API —
 * and whether sentences that fail verification are marked instead of removed. The API key
 * goes to main once (then to the OS keychain) and the field empties; only its status and
 * last four characters come back. For a remote service the section only says what that
 * service's answers name, read-only.
 */
import { useEffect, useRef, useState } from 'react';
import type { AnswersStatus } from '../../../../shared/bridge-contract';
import { isOnThisMachine, modelOrigin } from '../../../../shared/model-location';
import { clarity } from '../../bridge/clarity';
import { useAppStore } from '../../store/app-store';

/** What the latest answer said about who wrote it (the service's `composer` extension). */
function latestComposerText(composer: { backend: 'extractive' | 'model'; model?: string; local?: boolean; fallbackReason?: string } | undefined): string {
  if (!composer) return 'It has not named its composer yet: ask a question and the answer says who wrote it.';
  if (composer.backend === 'model' || composer.model) {
    const where = composer.local === false ? ' (not on that service’s machine)' : composer.local === true ? ' (on that service’s machine)' : '';
    return `Its latest answer was written by the model ${composer.model ?? '(unnamed)'}${where}${composer.fallbackReason ? `, which failed: the answer came from the signals (${composer.fallbackReason})` : ''}.`;
  }
  return 'Its latest answer was composed from the signals, with no model.';
}

/** Where the questions go, said plainly, for the address as typed. */
export function ModelLocation({ url }: { url: string }) {
  const origin = modelOrigin(url);
  if (!origin) return null;
  return isOnThisMachine(url) ? (
    <p className="hint" data-testid="answers-location" data-local="true">
      This model runs on this machine ({origin}): your questions and the cited signals stay here.
    </p>
  ) : (
    <p className="notice" role="note" data-testid="answers-location" data-local="false">
      This model is not on this machine: your questions, the conversation so far and the text of the cited signals are sent to {origin} for every answer.
    </p>
  );
}

export function AnswerSettings() {
  const serviceStatus = useAppStore((s) => s.serviceStatus);
  const latest = useAppStore((s) => s.turns.findLast((turn) => turn.answer?.composer)?.answer?.composer);
  const [status, setStatus] = useState<AnswersStatus | null>(null);
  const [backend, setBackend] = useState<'extractive' | 'model'>('extractive');
  const [modelUrl, setModelUrl] = useState('');
  const [model, setModel] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [markUnsupported, setMarkUnsupported] = useState(false);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const [saving, setSaving] = useState(false);
  const remote = serviceStatus?.mode === 'remote';

  const show = (next: AnswersStatus): void => {
    setStatus(next);
    setBackend(next.setting.backend);
    setModelUrl(next.setting.modelUrl);
    setModel(next.setting.model);
    setMarkUnsupported(next.setting.markUnsupported);
  };

  // Set by the analyst's first change: the saved settings, read as the section opens, must not
  // overwrite a choice made before they arrived (on a busy machine the read takes seconds).
  const edited = useRef(false);
  const edit = (apply: () => void): void => {
    edited.current = true;
    apply();
  };

  // Until the saved settings are read the controls are disabled: the defaults shown meanwhile are
  // not the analyst's settings, and a choice that matched a default (a click on the radio already
  // checked) would be replaced when they arrived (seen on a busy machine: "extractive" clicked,
  // then the saved model came back and was saved again).
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    void clarity()
      .invoke('answers.status')
      .then(
        (result) => {
          if (result.ok) {
            if (edited.current) setStatus(result.value);
            else show(result.value);
          }
          setLoaded(true);
        },
        () => setLoaded(true),
      );
  }, []);

  const save = async (options: { clearKey?: boolean } = {}): Promise<void> => {
    setMessage(null);
    setSaving(true);
    const result = await clarity().invoke('answers.set', {
      backend,
      modelUrl,
      model,
      markUnsupported,
      ...(apiKey.trim() ? { apiKey } : {}),
      ...(options.clearKey ? { clearKey: true } : {}),
    });
    setSaving(false);
    if (!result.ok) {
      setMessage({ text: result.error.message, error: true });
      return;
    }
    // SECURITY: the key field is emptied at once; the renderer keeps only the status.
    setApiKey('');
    show(result.value);
    const who = `${result.value.setting.backend === 'model' ? `the model ${result.value.setting.model}` : 'the signals (no model)'}${result.value.setting.markUnsupported ? ', marking the sentences the cited signals do not support' : ''}`;
    setMessage({ text: result.value.appliesToServiceInUse ? `Saved. The local service now writes answers with ${who}.` : `Saved. The local service will write answers with ${who} when you use it.`, error: false });
  };

  const saved = status?.setting;
  const current = !saved
    ? ''
    : saved.backend === 'model'
      ? `The local service answers with the model ${saved.model} at ${modelOrigin(saved.modelUrl) ?? saved.modelUrl}; every claim is checked against the signals it cites, and a model that fails is replaced by the extractive composer for that answer.`
      : 'The local service composes answers from the signals, with no model (works offline); every claim is checked against the signals it cites.';

  return (
    <fieldset data-testid="answer-settings" disabled={!loaded} aria-busy={!loaded}>
      <legend>Answers</legend>
      {remote ? (
        <p className="hint" data-testid="answers-remote">
          The service at {serviceStatus?.baseUrl ? new URL(serviceStatus.baseUrl).origin : 'its address'} chooses how its answers are written. {latestComposerText(latest)} The settings below are for the embedded local service.
        </p>
      ) : (
        <p className="hint" data-testid="answers-current">
          {loaded ? current : 'Reading the saved settings…'}
        </p>
      )}
      <label>
        <input type="radio" name="answers-backend" checked={backend === 'extractive'} onChange={() => edit(() => setBackend('extractive'))} data-testid="answers-extractive" />
        From the signals, with no model (default; offline)
      </label>
      <label>
        <input type="radio" name="answers-backend" checked={backend === 'model'} onChange={() => edit(() => setBackend('model'))} data-testid="answers-model" />
        Written by a language model: any OpenAI-compatible chat-completions API (Ollama, llama.cpp, vLLM, LM Studio, OpenAI, Azure OpenAI)
      </label>
      {backend === 'model' ? (
        <div className="answers-model">
          <label>
            API address{' '}
            <input
              type="url"
              placeholder="http://127.0.0.1:11434/v1"
              value={modelUrl}
              onChange={(event) => edit(() => setModelUrl(event.target.value))}
              aria-label="Model API address"
              data-testid="answers-model-url"
            />
          </label>
          <label>
            Model{' '}
            <input type="text" placeholder="llama3.1" value={model} onChange={(event) => edit(() => setModel(event.target.value))} aria-label="Model name" data-testid="answers-model-name" />
          </label>
          <label>
            API key{' '}
            <input
              type="password"
              autoComplete="off"
              placeholder={status?.key.set ? `Stored, ending in …${status.key.last4}; type to replace it` : 'Only if the API needs one'}
              value={apiKey}
              onChange={(event) => setApiKey(event.target.value)}
              aria-label="Model API key"
              data-testid="answers-api-key"
            />
          </label>
          <p className="hint" data-testid="answers-key-status">
            {status?.key.set ? `A key ending in …${status.key.last4} is set.` : 'No API key set (local servers such as Ollama need none).'}{' '}
            {status ? (status.key.backend === 'keychain' ? `Stored in the OS keychain. ${status.key.backendDetail}` : `Not stored: session only. ${status.key.backendDetail}`) : ''}
          </p>
          <ModelLocation url={modelUrl} />
        </div>
      ) : null}
      <label>
        <input type="checkbox" checked={markUnsupported} onChange={(event) => edit(() => setMarkUnsupported(event.target.checked))} data-testid="answers-mark-unsupported" />
        Mark sentences the cited signals do not support, instead of removing them
      </label>
      <div className="row">
        <button type="button" onClick={() => void save()} disabled={saving} data-testid="answers-save">
          {remote ? 'Save' : 'Save and restart the local service'}
        </button>
        {status?.key.set ? (
          <button type="button" className="secondary" onClick={() => void save({ clearKey: true })} disabled={saving} data-testid="answers-key-clear">
            Forget the API key
          </button>
        ) : null}
        {message ? (
          <span className={message.error ? 'notice' : 'hint'} role={message.error ? 'alert' : 'status'} data-testid="answers-message">
            {message.text}
          </span>
        ) : null}
      </div>
    </fieldset>
  );
}
