/**
 * Issue 45 as the analyst sees it: a model that writes the way small local models do (gives a
 * panel's share to the wrong player, cites as `(sig_…)` or `[1]`, stalls after a kept sentence)
 * gets exactly its supported sentences into the answer, each with its chip; the swapped one is
 * listed under the answer with the mismatch named; no citation marker is ever shown as text.
 * The app's embedded service asks the scripted OpenAI-compatible model over real HTTP.
 */
import { test as base, expect } from './fixtures';
import type { Answer } from './pages/chat-page';
import { panelSwap, evidenceInPrompt, startScriptedModel, type ScriptedModel } from '../support/scripted-model';

const QUESTION = 'How fast is quick commerce growing in Bengaluru?';

// One scripted model for the file, so that its tests can share one app (`fileApp`, whose service
// is started with the model's URL); each test starts from the file's script.
let fileModel: ScriptedModel | null = null;

const test = base.extend<{ scriptedModel: ScriptedModel }>({
  // Playwright reads fixture dependencies from the destructuring pattern; this one has none.
  // eslint-disable-next-line no-empty-pattern
  scriptedModel: async ({}, use) => {
    fileModel ??= await startScriptedModel({ script: 'swap-subject', chunkMs: 2 });
    fileModel.script = 'swap-subject';
    await use(fileModel);
  },
  serviceArgs: async ({ scriptedModel }, use) => use(['--model-url', scriptedModel.url, '--model', 'scripted-7b', '--model-silence-ms', '2000']),
});

test.afterAll(async () => {
  await fileModel?.close();
  fileModel = null;
});

/** No citation form but a chip reaches what the analyst reads. */
async function expectNoLiteralMarkers(answer: Answer): Promise<void> {
  const text = await answer.body.innerText();
  expect(text).not.toMatch(/sig_[0-9a-f]{6}|【|\[\d+\]|\(\s*\)/);
}

test('a swapped figure is removed with the mismatch named; sloppy citation forms become chips', async ({ fileApp, chat, scriptedModel }) => {
  await chat.open(fileApp);

  // A panel's share given to another player: removed, and the reason says whose figure it is.
  await chat.askAndWait(QUESTION);
  const swapped = chat.latest();
  const { leader, other, share } = panelSwap(evidenceInPrompt(scriptedModel.requests.at(-1)!.body.messages.at(-1)!.content));
  await expect(swapped.composerName).toContainText('Written by the model scripted-7b');
  await expect(swapped.body).toContainText('Here is what the signals say.');
  await expect(swapped.body).not.toContainText(`${other} leads with`);
  await expect(swapped.chips.first()).toBeVisible();
  await expect(swapped.removedClaims).toContainText('(1 sentence)');
  await swapped.removedClaims.click();
  await expect(swapped.removedClaim).toContainText(`${other} leads with ${share}`);
  await expect(swapped.removedClaim).toContainText(`the cited signal gives ${share} to ${leader}, not ${other}`);
  await expectNoLiteralMarkers(swapped);

  // `(sig_…)` citations: both sentences kept, each with its chip.
  scriptedModel.script = 'cite-paren';
  await chat.askAndWait(QUESTION);
  const paren = chat.latest();
  // The model's paragraph (after its opening line): both sentences kept, a chip each. The service
  // adds its own "Sources disagree" note below, with chips of its own.
  await expect(paren.body.locator('p').nth(1).getByTestId('citation-chip')).toHaveCount(2);
  await expect(paren.removedClaims).toHaveCount(0);
  await expectNoLiteralMarkers(paren);

  // `[1]`, `[2]`: the n-th evidence item, shown as chips too.
  scriptedModel.script = 'cite-numbered';
  await chat.askAndWait(QUESTION);
  const numbered = chat.latest();
  await expect(numbered.body.locator('p').nth(1).getByTestId('citation-chip')).toHaveCount(2);
  await expect(numbered.removedClaims).toHaveCount(0);
  await expectNoLiteralMarkers(numbered);
});

test('a model that stalls after a kept sentence: its partial text is replaced by the answer from the signals, not followed by it', async ({ fileApp, chat, scriptedModel }) => {
  scriptedModel.script = 'stall-after-text';
  await chat.open(fileApp);
  await chat.startNewConversation();
  await chat.askAndWait(QUESTION, { timeout: 30_000 });
  const answer = chat.latest();
  await expect(answer.composerFallback).toContainText('The model scripted-7b');
  await expect(answer.chips.first()).toBeVisible();
  const text = await answer.body.innerText();
  // One answer: the model's opening line is gone, and no rule separates two answers.
  expect(text).not.toContain('Here is what the signals say.');
  await expect(answer.body.locator('hr')).toHaveCount(0);
  await expectNoLiteralMarkers(answer);
});
