/**
 * Chat (the Ask view): the composer, the answers with their chips, citation lists and actions,
 * and the conversation list.
 */
import { expect, type Locator } from '@playwright/test';
import { AppShell } from './app-shell';

export class ChatPage extends AppShell {
  get composer(): Locator {
    return this.page.getByTestId('composer-input');
  }
  get sendButton(): Locator {
    return this.page.getByTestId('send');
  }
  /** The Stop button while an answer streams. */
  get cancelButton(): Locator {
    return this.page.getByTestId('cancel');
  }
  get answers(): Locator {
    return this.page.getByTestId('answer');
  }
  get questions(): Locator {
    return this.page.getByTestId('question');
  }
  get conversationTitle(): Locator {
    return this.page.getByTestId('conversation-title');
  }
  get conversations(): Locator {
    return this.page.getByTestId('conversation-item');
  }
  /** The toolbar above the conversation (a neutral place to click before a shortcut). */
  get toolbar(): Locator {
    return this.page.locator('.chat-toolbar');
  }
  get shareButton(): Locator {
    return this.page.getByTestId('share');
  }
  /** Issue 47: the question asked before anything is shared, saying who can open the link. */
  get shareConfirm(): Locator {
    return this.page.getByTestId('share-confirm');
  }
  get shareConfirmYes(): Locator {
    return this.page.getByTestId('share-confirm-yes');
  }
  get unshareButton(): Locator {
    return this.page.getByTestId('unshare');
  }
  /** "Public: <url>" once the session is shared. */
  get publicUrl(): Locator {
    return this.page.getByTestId('public-url');
  }
  get undoDelete(): Locator {
    return this.page.getByTestId('undo-delete');
  }
  /** Every citation chip on the page. */
  get chips(): Locator {
    return this.page.getByTestId('citation-chip');
  }
  /** A chip's hover preview. */
  get chipPreview(): Locator {
    return this.page.getByTestId('chip-preview');
  }

  async ask(question: string): Promise<void> {
    await this.composer.fill(question);
    await this.sendButton.click();
  }

  lastAnswer(): Locator {
    return this.answers.last();
  }

  /** The last answer's parts: body, chips, citation list, actions. */
  latest(): Answer {
    return new Answer(this.lastAnswer());
  }

  /** Waits until the last answer has finished with `status` (done, failed, incomplete, cancelled). */
  async expectLastAnswer(status: string, options?: { timeout?: number }): Promise<void> {
    await expect(this.lastAnswer()).toHaveAttribute('data-status', status, options);
  }

  /** Asks and waits for the answer to finish streaming. */
  async askAndWait(question: string, options?: { timeout?: number }): Promise<Locator> {
    await this.ask(question);
    await this.expectLastAnswer('done', options);
    return this.lastAnswer();
  }

  /**
   * Starts a new, empty conversation, as Alt+N does: a test on an app shared with the file's other
   * tests (`fileApp`) asks in its own. Waits first for what the page opens with (the latest
   * conversation, or none), so that opening does not replace the new one.
   */
  async startNewConversation(): Promise<void> {
    await expect(this.page.locator('[data-testid="conversation-item"].active, [data-testid="conversations-empty"]')).not.toHaveCount(0);
    const before = await this.conversations.count();
    await this.page.getByTestId('new-conversation').click();
    await expect(this.conversations).toHaveCount(before + 1);
    await expect(this.answers).toHaveCount(0);
  }

  conversation(hasText: string): Locator {
    return this.conversations.filter({ hasText });
  }

  async renameConversation(hasText: string, title: string): Promise<void> {
    const item = this.conversation(hasText);
    await item.hover();
    await item.getByTestId('rename-conversation').click();
    await this.page.getByTestId('rename-input').fill(title);
    await this.page.getByTestId('rename-input').press('Enter');
  }

  async deleteConversation(hasText: string): Promise<void> {
    const item = this.conversation(hasText);
    await item.hover();
    await item.getByTestId('delete-conversation').click();
  }

  /** The public URL shown after sharing, without its "Public: " label. */
  async sharedUrl(): Promise<string> {
    return (await this.publicUrl.innerText()).replace(/^Public: /, '');
  }
}

/** The parts of one answer (pass `chat.lastAnswer()` or any `answer` locator). */
export class Answer {
  constructor(readonly root: Locator) {}

  get body(): Locator {
    return this.root.getByTestId('answer-body');
  }
  /** The chips in the answer's text. */
  get chips(): Locator {
    return this.body.getByTestId('citation-chip');
  }
  /** Every chip of the answer, in its text or elsewhere in the answer. */
  get allChips(): Locator {
    return this.root.getByTestId('citation-chip');
  }
  /** The source name of each citation entry. */
  get entrySources(): Locator {
    return this.entries.getByTestId('citation-source');
  }
  /** The sources list under the answer. */
  get citationList(): Locator {
    return this.root.getByTestId('citation-list');
  }
  get entries(): Locator {
    return this.root.getByTestId('citation-entry');
  }
  entry(cite: string): Locator {
    return this.root.locator(`[data-testid="citation-entry"][data-cite="${cite}"]`);
  }
  get error(): Locator {
    return this.root.getByTestId('answer-error');
  }
  get retry(): Locator {
    return this.root.getByTestId('retry');
  }
  get confidence(): Locator {
    return this.root.getByTestId('confidence');
  }
  get confidenceBars(): Locator {
    return this.root.getByTestId('confidence-trace').locator('.trace-bar');
  }
  get researchPromotion(): Locator {
    return this.root.getByTestId('research-promotion');
  }
  /** Claim verification: the collapsed list of removed sentences, and each of them. */
  get removedClaims(): Locator {
    return this.root.getByTestId('removed-claims');
  }
  get removedClaim(): Locator {
    return this.root.getByTestId('removed-claim');
  }
  /** With "mark unsupported" on: the sentences kept in the text behind a ⚠ mark, listed. */
  get markedClaims(): Locator {
    return this.root.getByTestId('marked-claims');
  }
  /** Which composer wrote the answer; a model's failure and the fallback. */
  get composerName(): Locator {
    return this.root.getByTestId('composer-name');
  }
  get composerFallback(): Locator {
    return this.root.getByTestId('composer-fallback');
  }
  get runPromotedResearch(): Locator {
    return this.root.getByTestId('run-promoted-research');
  }
  get saveButton(): Locator {
    return this.root.getByTestId('save-answer');
  }
  get copyMarkdown(): Locator {
    return this.root.getByTestId('copy-markdown');
  }
  get copyText(): Locator {
    return this.root.getByTestId('copy-text');
  }
  get exportFormat(): Locator {
    return this.root.getByTestId('export-format');
  }
  /** The answer's text as shown now. */
  async text(): Promise<string> {
    return this.body.innerText();
  }

  /**
   * Hovers a chip of this answer and returns the preview. Only once the answer has finished
   * rendering (done, its actions shown): while it streams its blocks are replaced under the
   * pointer, and a replaced chip gets no mouseover until the pointer moves again (a busy machine
   * made that race visible).
   */
  async previewChip(chip: Locator): Promise<Locator> {
    await expect(this.root).toHaveAttribute('data-status', 'done');
    await expect(this.copyMarkdown).toBeVisible();
    await chip.hover();
    return this.root.page().getByTestId('chip-preview');
  }
}
