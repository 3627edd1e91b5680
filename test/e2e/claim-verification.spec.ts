/**
 * Answers written by a model, checked claim by claim, as the analyst sees them (issue 28): the
 * app's embedded service asks the scripted OpenAI-compatible model (real HTTP on a loopback
 * port in this test process). A sentence with an invented figure is never shown in the answer,
 * only collapsed under it with its reason; a chip opens the citation panel with the span of the
 * signal that supports its sentence highlighted; a model that fails is named, and the answer
 * still comes, from the signals.
 */
import { test as base, expect } from './fixtures';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';

// One scripted model for the file, so that its tests can share one app (`fileApp`, whose service
// is started with the model's URL); each test starts from the file's script.
let fileModel: ScriptedModel | null = null;

const test = base.extend<{ scriptedModel: ScriptedModel }>({
  // Playwright reads fixture dependencies from the destructuring pattern; this one has none.
  // eslint-disable-next-line no-empty-pattern
  scriptedModel: async ({}, use) => {
    fileModel ??= await startScriptedModel({ script: 'invent-figure', chunkMs: 2 });
    fileModel.script = 'invent-figure';
    await use(fileModel);
  },
  serviceArgs: async ({ scriptedModel }, use) => use(['--model-url', scriptedModel.url, '--model', 'scripted-7b']),
});

test.afterAll(async () => {
  await fileModel?.close();
  fileModel = null;
});

test('a removed claim is shown collapsed under the answer, and a chip opens the supporting span highlighted', async ({ fileApp, chat, citations, settings }) => {
  await chat.open(fileApp);
  await chat.askAndWait('How fast is quick commerce growing in Bengaluru?');
  const answer = chat.latest();
  await expect(answer.composerName).toContainText('Written by the model scripted-7b');
  // The invented figure never reaches the answer's text…
  await expect(answer.body).toContainText('Here is what the signals say.');
  await expect(answer.body).not.toContainText('987.6');
  // …it is listed, collapsed, with why.
  await expect(answer.removedClaims).toContainText('Removed: not supported by the cited signals (1 sentence)');
  await expect(answer.removedClaim).toBeHidden();
  await answer.removedClaims.locator('summary').click();
  await expect(answer.removedClaim).toContainText('Gross order value grew 987.6% year on year');
  await expect(answer.removedClaim).toContainText('"987.6%" does not appear in the cited signal');

  await answer.chips.first().click();
  await expect(citations.root).toBeVisible();
  await expect(citations.supportSpan).toBeVisible();
  await expect(citations.supportSpan).toBeInViewport();
  // The span is the signal's sentence that states what the answer's first sentence says.
  const firstSentence = (await answer.body.innerText()).split('\n').find((line) => /\d/.test(line)) ?? '';
  const figure = /\d+\.\d+%/.exec(firstSentence)?.[0];
  if (figure) await expect(citations.supportSpan).toContainText(figure);

  // Settings say which backend answers, and that this model is on the service's machine.
  await settings.goTo('settings');
  await expect(settings.composerLine).toContainText('Answers are written by the model scripted-7b');
  await expect(settings.composerLine).toContainText('It runs on the same machine as the service.');
});

test('a model that fails with 429 is named, and the answer comes from the signals', async ({ fileApp, chat, scriptedModel }) => {
  scriptedModel.script = 'rate-limit';
  await chat.open(fileApp);
  await chat.startNewConversation();
  await chat.askAndWait('How fast is quick commerce growing in Bengaluru?');
  const answer = chat.latest();
  await expect(answer.composerFallback).toContainText('The model scripted-7b could not answer');
  await expect(answer.composerFallback).toContainText('HTTP 429');
  await expect(answer.body).toContainText('Quick commerce in Bengaluru');
  await expect(answer.chips.first()).toBeVisible();
});
