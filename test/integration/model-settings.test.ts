/**
 * Settings › Answers (issue 28), composed as both hosts compose the app: choosing a model in
 * the settings restarts the embedded service with `--model-url`/`--model` and the key in its
 * environment; the key reaches the model API and nothing else — not settings.json, not a log
 * line, not the service's command line, not the renderer. Switching back to the extractive
 * composer leaves the model alone. Runs against the real OS keychain under
 * scripts/with-keychain.sh, else with the session-only store (the status says which).
 */
import { readdir, readFile, rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeMainServices, type MainServices } from '../../src/main/compose-services';
import { browserHostCapabilities } from '../../src/main/desktop/host-capabilities';
import { startLogFiles, type LogFiles } from '../../src/main/logging/log-files';
import type { AnswersStatus, AskEvent, StreamMessage } from '../../src/shared/bridge-contract';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { everyFileText } from '../support/data-files';
import { serviceEntry, runsTheService } from '../support/built-code';
import { seedServiceFolder } from '../support/prepared-service-folder';

const KEY = `sk-settings-${process.pid}-Zq7vW3xR9tLm2K`;
let dir: string;
let services: MainServices;
let model: ScriptedModel;
let logs: LogFiles;
const pushed: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clarity-model-settings-'));
  // The embedded service's folder begins with the migrated database a first start leaves (the suite's copy): these tests are about the composer.
  await seedServiceFolder(join(dir, 'local-service'), { corpus: false });
  logs = await startLogFiles(dir, { alsoStderr: false });
  model = await startScriptedModel({ script: 'invent-figure' });
  services = await composeMainServices({
    dataDir: dir,
    keychainService: `Clarity model settings test ${process.pid}`,
    serviceLaunch: { command: process.execPath, args: [...serviceEntry(), '--no-live', '--signals', '4000'] },
    capabilities: browserHostCapabilities(),
    paceMs: 0,
  });
  // Everything main pushes to a renderer, as the renderer would receive it.
  services.host.onPush((event, payload) => pushed.push(`${event} ${JSON.stringify(payload)}`));
  await services.host.start();
}, 120_000);
afterAll(async () => {
  await services?.host.dispose();
  logs?.close();
  await model?.close();
  await rm(dir, { recursive: true, force: true });
});

async function setAnswers(args: Record<string, unknown>): Promise<{ ok: true; value: AnswersStatus } | { ok: false; error: { code: string; message: string } }> {
  return (await services.host.invoke('answers.set', args)) as never;
}

/** Asks through the bridge, as the renderer does; resolves with the normalised events. */
function askThroughBridge(question: string): Promise<AskEvent[]> {
  const streamId = `ask_${Math.random().toString(36).slice(2, 10)}`;
  return new Promise((resolve, reject) => {
    const events: AskEvent[] = [];
    const sink = (message: StreamMessage): void => {
      if (message.streamId !== streamId) return;
      if (message.kind === 'events') events.push(...message.events);
      if (message.kind === 'done') resolve(events);
      if (message.kind === 'error') reject(new Error(message.error.message));
    };
    const started = services.host.startStream(streamId, 'ask', { question }, sink);
    if (!started.ok) reject(new Error(started.error.message));
  });
}

describe('Settings › Answers', () => {
  it('starts with the extractive composer', async () => {
    const status = await services.host.invoke('answers.status', undefined);
    expect(status).toMatchObject({ ok: true, value: { setting: { backend: 'extractive' }, key: { set: false }, modelOnThisMachine: null, appliesToServiceInUse: true } });
    const events = await askThroughBridge('How fast is quick commerce growing in Bengaluru?');
    expect(events).toContainEqual(expect.objectContaining({ type: 'meta', composer: { backend: 'extractive' } }));
    expect(model.requests).toHaveLength(0);
  }, 60_000);

  it('refuses a bad address or a missing model name with a clear error, and changes nothing', async () => {
    const before = await readFile(join(dir, 'settings.json'), 'utf8').catch(() => '');
    const pid = services.host.serviceStatus().baseUrl;
    expect(await setAnswers({ backend: 'model', modelUrl: 'ftp://127.0.0.1/v1', model: 'x', markUnsupported: false })).toMatchObject({
      ok: false,
      error: { code: 'invalid_argument', message: 'The model API’s address starts with http:// or https://.' },
    });
    expect(await setAnswers({ backend: 'model', modelUrl: 'not a url', model: 'x', markUnsupported: false })).toMatchObject({
      ok: false,
      error: { message: 'Enter the model API’s address, e.g. http://127.0.0.1:11434/v1 for Ollama.' },
    });
    expect(await setAnswers({ backend: 'model', modelUrl: 'https://user:secret@api.example.com/v1', model: 'x', markUnsupported: false })).toMatchObject({
      ok: false,
      error: { message: 'Leave the user name and password out of the address; put an API key in the API key field.' },
    });
    expect(await setAnswers({ backend: 'model', modelUrl: model.url, model: '', markUnsupported: false })).toMatchObject({ ok: false, error: { message: 'Enter the model’s name, e.g. llama3.1.' } });
    // SECURITY: a key is never sent in the clear to another machine.
    expect(await setAnswers({ backend: 'model', modelUrl: 'http://192.0.2.10:11434/v1', model: 'llama3.1', markUnsupported: false, apiKey: KEY })).toMatchObject({
      ok: false,
      error: { message: 'An API key would cross the network unencrypted over http://; use the API’s https:// address.' },
    });
    expect(await readFile(join(dir, 'settings.json'), 'utf8').catch(() => '')).toBe(before);
    expect(services.host.serviceStatus().baseUrl).toBe(pid);
  });

  it('choosing a model restarts the service with it; the key reaches the model API and nowhere else', async () => {
    const before = await servicePid();
    const saved = await setAnswers({ backend: 'model', modelUrl: model.url, model: 'scripted-7b', markUnsupported: false, apiKey: KEY });
    expect(saved).toMatchObject({ ok: true, value: { setting: { backend: 'model', modelUrl: model.url, model: 'scripted-7b' }, key: { set: true, last4: KEY.slice(-4) }, modelOnThisMachine: true } });
    const status = (saved as { value: AnswersStatus }).value;
    // The status says where the key is: the OS keychain, or this session only (no keychain here).
    expect(status.key.backendDetail).toMatch(status.key.backend === 'keychain' ? /OS keychain/ : /session only/);
    // A new service process, ready (on the same port when it is free: shared links stay valid, issue 47).
    expect(services.host.serviceStatus()).toMatchObject({ mode: 'local', state: 'ready' });
    if (before !== null) expect(await servicePid()).not.toBe(before);

    const events = await askThroughBridge('How fast is quick commerce growing in Bengaluru?');
    expect(events).toContainEqual(expect.objectContaining({ type: 'meta', composer: { backend: 'model', model: 'scripted-7b', local: true } }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'claim_removed', text: expect.stringContaining('987.6%') }));
    expect(model.requests.at(-1)?.authorization).toBe(`Bearer ${KEY}`);

    // The service's command line carries the model, never the key (any process may read it).
    const pid = await servicePid();
    expect(pid === null && process.platform === 'linux').toBe(false);
    if (pid !== null) {
      const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
      expect(cmdline).toEqual(expect.arrayContaining(['--model-url', model.url, '--model', 'scripted-7b']));
      expect(cmdline.join(' ')).not.toContain(KEY);
      expect(await readFile(`/proc/${pid}/environ`, 'utf8')).toContain(`CLARITY_MODEL_API_KEY=${KEY}`);
    }

    // Nothing the renderer received, and no file the app wrote, holds the key.
    expect(JSON.stringify(await services.host.invoke('answers.status', undefined))).not.toContain(KEY);
    expect(JSON.stringify(await services.host.invoke('settings.get', undefined))).not.toContain(KEY);
    expect(pushed.join('\n')).not.toContain(KEY);
    const settingsFile = JSON.parse(await readFile(join(dir, 'settings.json'), 'utf8')) as { answers: unknown };
    expect(settingsFile.answers).toEqual({ backend: 'model', modelUrl: model.url, model: 'scripted-7b', markUnsupported: false });
    const files = await everyFileText(dir);
    expect(files.some((file) => file.path.includes(join(dir, 'logs')))).toBe(true);
    expect(files.filter((file) => file.text.includes(KEY)).map((file) => file.path)).toEqual([]);
  }, 90_000);

  it('switching back to the extractive composer restarts the service without the model or its key', async () => {
    const asked = model.requests.length;
    const saved = await setAnswers({ backend: 'extractive', modelUrl: model.url, model: 'scripted-7b', markUnsupported: false });
    // The address and name are kept for switching back; the key stays in the keychain.
    expect(saved).toMatchObject({ ok: true, value: { setting: { backend: 'extractive', modelUrl: model.url }, key: { set: true }, modelOnThisMachine: null } });
    const events = await askThroughBridge('How fast is quick commerce growing in Bengaluru?');
    expect(events).toContainEqual(expect.objectContaining({ type: 'meta', composer: { backend: 'extractive' } }));
    expect(model.requests).toHaveLength(asked);
    const pid = await servicePid();
    if (pid !== null) expect(await readFile(`/proc/${pid}/environ`, 'utf8')).not.toContain(KEY);
    // Forgetting the key removes it from the keychain (or the session).
    const cleared = await setAnswers({ backend: 'extractive', modelUrl: model.url, model: 'scripted-7b', markUnsupported: false, clearKey: true });
    expect(cleared).toMatchObject({ ok: true, value: { key: { set: false, last4: null } } });
  }, 90_000);
});

/** The embedded service's process id: the one whose command line names this test's data directory (Linux /proc). */
async function servicePid(): Promise<number | null> {
  if (process.platform !== 'linux') return null;
  const marker = join(dir, 'local-service');
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (runsTheService(cmdline) && cmdline.includes(marker)) return Number(pid);
  }
  return null;
}
