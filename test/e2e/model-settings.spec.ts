/**
 * The analyst chooses the model in the app (issue 28): Settings › Answers points the embedded
 * service at the scripted OpenAI-compatible model (real HTTP on a loopback port in this test
 * process), with an API key that goes to the OS keychain (scripts/with-keychain.sh). The service
 * restarts with it, keeping the question typed and the conversation; the model's answer has an
 * invented figure removed and listed, and the chip of a later sentence opens the span of the
 * signal that supports that sentence, not the first span of the signal. Marking instead of
 * removing shows the sentence marked; switching back to the extractive composer leaves the model.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test as base, expect } from './fixtures';
import { citeTwiceSentences, evidenceInPrompt, startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { everyFileText } from '../support/data-files';
import { serviceEntry } from '../support/built-code';

const test = base.extend<{ scriptedModel: ScriptedModel }>({
  // Playwright reads fixture dependencies from the destructuring pattern; this one has none.
  // eslint-disable-next-line no-empty-pattern
  scriptedModel: async ({}, use) => {
    const model = await startScriptedModel({ script: 'cite-twice', chunkMs: 2 });
    await use(model);
    await model.close();
  },
});

// A smaller sample: the service restarts three times in this test, each start generating it.
test.use({ serviceArgs: ['--signals', '4000'] });

const QUESTION = 'How fast is quick commerce growing in Bengaluru?';
const KEY = 'sk-e2e-model-key-7QwErTy9';

test('Settings › Answers: a model chosen in the app answers, claims checked, each chip opens its own sentence’s span', async ({ app, chat, citations, settings, scriptedModel }) => {
  test.setTimeout(240_000);
  await chat.open(app);
  // A conversation under way with the extractive composer, and a question typed, not sent.
  await chat.askAndWait('Zudio store openings');
  await expect(chat.latest().composerName).toContainText('Composed from the signals (no model)');
  await chat.composer.fill(QUESTION);

  await settings.goTo('settings');
  await expect(settings.answersCurrent).toContainText('composes answers from the signals, with no model');
  await settings.answersModel.check();
  await settings.answersModelUrl.fill('ftp://127.0.0.1/v1');
  await settings.answersModelName.fill('scripted-7b');
  await settings.answersSave.click();
  await expect(settings.answersMessage).toHaveText('The model API’s address starts with http:// or https://.');

  await settings.answersModelUrl.fill(scriptedModel.url);
  await expect(settings.answersLocation).toHaveAttribute('data-local', 'true');
  await expect(settings.answersLocation).toContainText('your questions and the cited signals stay here');
  await settings.answersApiKey.fill(KEY);
  await settings.answersSave.click();
  await expect(settings.answersMessage).toHaveText('Saved. The local service now writes answers with the model scripted-7b.', { timeout: 120_000 });
  // SECURITY: the field is emptied; only the last four characters come back, with where the key is.
  await expect(settings.answersApiKey).toHaveValue('');
  await expect(settings.answersKeyStatus).toContainText(`A key ending in …${KEY.slice(-4)} is set.`);
  const credentialBackend = await settings.credentialBackend.innerText();
  await expect(settings.answersKeyStatus).toContainText(credentialBackend.startsWith('Stored in the OS keychain') ? 'Stored in the OS keychain.' : 'Not stored: session only.');
  await expect(settings.answersCurrent).toContainText('answers with the model scripted-7b at http://127.0.0.1:');

  // Back in chat: the question typed and the conversation are still there.
  await chat.goTo('chat');
  await expect(chat.composer).toHaveValue(QUESTION);
  await expect(chat.answers).toHaveCount(1);
  await chat.sendButton.click();
  await chat.expectLastAnswer('done', { timeout: 60_000 });
  const answer = chat.latest();
  await expect(answer.composerName).toContainText('Written by the model scripted-7b');
  expect(scriptedModel.requests.at(-1)?.authorization).toBe(`Bearer ${KEY}`);
  // The invented figure never reaches the text; it is listed, collapsed, with why.
  await expect(answer.body).not.toContainText('987.6');
  await expect(answer.removedClaims).toContainText('Removed: not supported by the cited signals (1 sentence)');
  await answer.removedClaims.locator('summary').click();
  await expect(answer.removedClaim).toContainText('"987.6%" does not appear in the cited signal');

  // The same signal supports both sentences, each from a different sentence of its body.
  const prompt = scriptedModel.requests.at(-1)!.body.messages.map((message) => message.content).join('\n');
  const { signal, one, two } = citeTwiceSentences(evidenceInPrompt(prompt));
  const chipsOfSignal = answer.body.locator(`[data-cite="${signal.id}"]`);
  await expect(chipsOfSignal).toHaveCount(2);
  // A figure the later sentence states and the first does not: only the later sentence's span has it.
  const figure = (two.match(/\d+(?:[.,]\d+)*/g) ?? []).find((n) => !one.includes(n))!;
  expect(figure).toBeTruthy();
  await chipsOfSignal.nth(1).click();
  await expect(citations.supportSpan).toBeInViewport();
  await expect(citations.supportSpan).toContainText(figure);
  const laterSpan = await citations.supportSpan.innerText();
  await chipsOfSignal.nth(0).click();
  await expect(citations.supportSpan).not.toHaveText(laterSpan);
  await expect(citations.supportSpan).not.toContainText(figure);
  await expect(citations.supportSpan).toContainText(one.slice(0, 20));

  // Marking instead of removing: the sentence stays, visibly marked, and is listed as marked.
  await settings.useModel(scriptedModel.url, 'scripted-7b', { markUnsupported: true });
  await expect(settings.answersMessage).toHaveText('Saved. The local service now writes answers with the model scripted-7b, marking the sentences the cited signals do not support.', { timeout: 120_000 });
  await chat.goTo('chat');
  await chat.askAndWait(QUESTION, { timeout: 60_000 });
  const marked = chat.latest();
  await expect(marked.body).toContainText('⚠ Not supported by the cited signals: Gross order value grew 987.6% year on year');
  await expect(marked.markedClaims).toContainText('Marked ⚠ in the answer: not supported by the cited signals (1 sentence)');
  await expect(marked.removedClaims).toHaveCount(0);

  // Back to the extractive composer: the model is asked no more.
  const asked = scriptedModel.requests.length;
  await settings.goTo('settings');
  await settings.answersExtractive.check();
  await settings.answersMarkUnsupported.setChecked(false);
  await settings.answersSave.click();
  await expect(settings.answersMessage).toHaveText('Saved. The local service now writes answers with the signals (no model).', { timeout: 120_000 });
  await chat.goTo('chat');
  await chat.askAndWait(QUESTION, { timeout: 60_000 });
  await expect(chat.latest().composerName).toContainText('Composed from the signals (no model)');
  expect(scriptedModel.requests).toHaveLength(asked);
  await expect(chat.answers).toHaveCount(4);

  // The key is in no file the app wrote and in no line it logged.
  expect(app.logs()).not.toContain(KEY);
  // Read again if a file vanishes mid-listing (the running app's saves and database keep writing).
  for (const file of await everyFileText(app.dataDir)) expect(file.text, file.path).not.toContain(KEY);
});

test('a remote service’s composer is shown read-only, from what its answers name', async ({ apps, chat, settings, scriptedModel }) => {
  test.setTimeout(180_000);
  // Another service (our own CLI in a process of its own) that writes with the scripted model.
  scriptedModel.script = 'good';
  const dataDir = await mkdtemp(join(tmpdir(), 'clarity-remote-model-'));
  const child = spawn(process.execPath, [...serviceEntry(), '--port', '0', '--no-live', '--signals', '4000', '--data-dir', dataDir, '--model-url', scriptedModel.url, '--model', 'remote-13b'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => line.startsWith('{') && resolve((JSON.parse(line) as { url: string }).url));
      child.once('exit', (code) => reject(new Error(`the remote service exited ${code}`)));
    });
    const app = await apps.start();
    await chat.open(app);
    await settings.useRemoteService(url);
    await settings.goTo('settings');
    await expect(settings.answersRemote).toContainText(`The service at ${url} chooses how its answers are written.`);
    await expect(settings.answersRemote).toContainText('It has not named its composer yet');
    await expect(settings.answersCurrent).toHaveCount(0);
    await expect(settings.answersSave).toHaveText('Save');

    await chat.goTo('chat');
    await chat.askAndWait(QUESTION, { timeout: 60_000 });
    await expect(chat.latest().composerName).toContainText('Written by the model remote-13b');
    expect(scriptedModel.requests.at(-1)?.body.model).toBe('remote-13b');
    await settings.goTo('settings');
    await expect(settings.answersRemote).toContainText('Its latest answer was written by the model remote-13b (on that service’s machine).');
  } finally {
    // Wait for it to exit: it writes its database as it closes, and removing the folder under it fails.
    const exited = child.exitCode === null && child.signalCode === null ? once(child, 'exit') : null;
    child.kill();
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  }
});
