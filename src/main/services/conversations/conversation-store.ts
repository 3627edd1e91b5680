/**
 * Conversations, persisted by the main process: one JSON file per conversation in
 * `<dataDir>/conversations/`, written atomically (temp file, fsync, rename). Main owns them
 * because it sees every stream event: a partial answer is kept even if the renderer dies.
 * A corrupt file is reported and skipped, never fatal. Deleting is soft until purged, so the
 * renderer can offer undo.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, unlink } from 'node:fs/promises';
import { ensureDataFolder } from '../data-folder/data-notices';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import type { Conversation, ConversationSummary, ConversationTurn } from '../../../shared/conversation';
import { ConversationSchema, titleFromQuestion } from '../../../shared/conversation';
import { CITATION_MARKER } from '../../../shared/cite-format';

const FILE_VERSION = 1;
const StoredConversation = z.object({ version: z.literal(FILE_VERSION), conversation: ConversationSchema });
/** Soft-deleted conversations are purged at start after this long. */
const PURGE_AFTER_MS = 24 * 3600_000;

export class ConversationStore {
  private readonly conversations = new Map<string, Conversation>();
  private readonly writes = new Map<string, Promise<void>>();
  /** Files that could not be read, set aside as `*.corrupt` (for the UI to report). */
  readonly corrupt: string[] = [];

  private constructor(
    private readonly dir: string,
    private readonly now: () => number,
  ) {}

  static async open(dataDir: string, now: () => number = Date.now): Promise<ConversationStore> {
    const dir = join(dataDir, 'conversations');
    await ensureDataFolder(dir);
    const store = new ConversationStore(dir, now);
    await store.load();
    return store;
  }

  private async load(): Promise<void> {
    // A folder that could not be made (read-only data directory) holds no conversations yet.
    const names = await readdir(this.dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[];
      throw error;
    });
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const file = join(this.dir, name);
      try {
        const { conversation } = StoredConversation.parse(JSON.parse(await readFile(file, 'utf8')));
        if (conversation.deletedAt && this.now() - Date.parse(conversation.deletedAt) > PURGE_AFTER_MS) {
          await unlink(file).catch(() => undefined);
          continue;
        }
        // An answer that was streaming when the app stopped is incomplete, not streaming.
        for (const turn of conversation.turns) {
          if (turn.answer.status === 'waiting' || turn.answer.status === 'streaming') {
            turn.answer.status = turn.answer.text ? 'incomplete' : 'failed';
            turn.answer.error ??= { code: 'network', message: 'The app stopped before this answer finished.' };
          }
        }
        this.conversations.set(conversation.id, conversation);
      } catch {
        this.corrupt.push(name);
        await rename(file, `${file}.corrupt`).catch(() => undefined);
      }
    }
  }

  /** Pinned first (most recently pinned on top), then the most recently updated. */
  list(): ConversationSummary[] {
    return [...this.conversations.values()]
      .filter((conversation) => !conversation.deletedAt)
      .sort((a, b) => (b.pinnedAt ?? '').localeCompare(a.pinnedAt ?? '') || b.updatedAt.localeCompare(a.updatedAt))
      .map(summaryOf);
  }

  /**
   * Conversations whose title, questions or answers hold every word of `text` (case and accents
   * ignored), in list order, each with where it matched.
   */
  search(text: string): ConversationSummary[] {
    const words = fold(text).split(/\s+/).filter(Boolean);
    if (words.length === 0) return this.list();
    const found: ConversationSummary[] = [];
    for (const summary of this.list()) {
      const conversation = this.conversations.get(summary.id)!;
      const parts = [conversation.title, ...conversation.turns.flatMap((turn) => [turn.question, turn.answer.text.replace(CITATION_MARKER, '')])];
      const all = fold(parts.join('\n'));
      if (!words.every((word) => all.includes(word))) continue;
      const titleHit = words.every((word) => fold(conversation.title).includes(word));
      found.push({ ...summary, match: titleHit ? 'title' : snippetAround(parts.slice(1).find((part) => fold(part).includes(words[0]!)) ?? '', words[0]!) });
    }
    return found;
  }

  async pin(id: string, pinned: boolean): Promise<Conversation | undefined> {
    const conversation = this.get(id);
    if (!conversation) return undefined;
    conversation.pinnedAt = pinned ? new Date(this.now()).toISOString() : null;
    await this.save(conversation);
    return conversation;
  }

  get(id: string): Conversation | undefined {
    const conversation = this.conversations.get(id);
    return conversation && !conversation.deletedAt ? conversation : undefined;
  }

  async create(title = 'New conversation'): Promise<Conversation> {
    const at = new Date(this.now()).toISOString();
    const conversation: Conversation = {
      id: `cnv_${randomBytes(8).toString('hex')}`,
      title,
      titleIsAuto: true,
      createdAt: at,
      updatedAt: at,
      sessionId: null,
      sessionSlug: null,
      publicUrl: null,
      deletedAt: null,
      turns: [],
    };
    this.conversations.set(conversation.id, conversation);
    await this.save(conversation);
    return conversation;
  }

  async rename(id: string, title: string): Promise<Conversation | undefined> {
    const conversation = this.get(id);
    if (!conversation) return undefined;
    conversation.title = title;
    conversation.titleIsAuto = false;
    conversation.updatedAt = new Date(this.now()).toISOString();
    await this.save(conversation);
    return conversation;
  }

  async remove(id: string): Promise<boolean> {
    const conversation = this.get(id);
    if (!conversation) return false;
    conversation.deletedAt = new Date(this.now()).toISOString();
    await this.save(conversation);
    return true;
  }

  async restore(id: string): Promise<Conversation | undefined> {
    const conversation = this.conversations.get(id);
    if (!conversation?.deletedAt) return undefined;
    conversation.deletedAt = null;
    await this.save(conversation);
    return conversation;
  }

  /** Adds a turn (or resets one for retry) and returns it; the caller fills the answer. */
  /**
   * Starts (or restarts) a turn in memory and saves it. The turn is returned even when the save
   * fails (an unwritable data folder): the answer still streams, `saved` says what happened.
   */
  async beginTurn(id: string, question: string, retryTurnId?: string): Promise<{ turn: ConversationTurn; saved: Promise<void> } | undefined> {
    const conversation = this.get(id);
    if (!conversation) return undefined;
    const at = new Date(this.now()).toISOString();
    let turn = retryTurnId ? conversation.turns.find((t) => t.id === retryTurnId) : undefined;
    const freshAnswer: ConversationTurn['answer'] = {
      text: '',
      status: 'waiting',
      error: null,
      citations: [],
      confidence: null,
      confidenceTrace: [],
      promotion: null,
    };
    if (turn) {
      turn.answer = freshAnswer;
      turn.askedAt = at;
    } else {
      turn = { id: `trn_${randomBytes(6).toString('hex')}`, question, askedAt: at, answer: freshAnswer };
      conversation.turns.push(turn);
      if (conversation.titleIsAuto && conversation.turns.length === 1) conversation.title = titleFromQuestion(question);
    }
    conversation.updatedAt = at;
    const saved = this.save(conversation);
    // Wait for the write as before, but let the caller decide what a failed one means.
    await saved.catch(() => undefined);
    return { turn, saved };
  }

  /** Persists the current state of a conversation (coalesced: one write at a time per file). */
  async save(conversation: Conversation): Promise<void> {
    const previous = this.writes.get(conversation.id) ?? Promise.resolve();
    const next = previous.then(() =>
      writeFileAtomic(join(this.dir, `${conversation.id}.json`), JSON.stringify({ version: FILE_VERSION, conversation }), { mode: 0o600, fsync: true }),
    );
    this.writes.set(conversation.id, next.catch(() => undefined));
    await next;
  }

  /** Resolves once every save begun so far has been written (or failed): shutdown waits for it. */
  async flushed(): Promise<void> {
    await Promise.all(this.writes.values());
  }

  /** Answers that cite a source (for the health view's drill-down). */
  citing(sourceId: string): Array<{ conversation: Conversation; turnIndex: number }> {
    const found: Array<{ conversation: Conversation; turnIndex: number }> = [];
    for (const conversation of this.conversations.values()) {
      if (conversation.deletedAt) continue;
      conversation.turns.forEach((turn, turnIndex) => {
        if (turn.answer.citations.some((citation) => citation.source_id === sourceId)) found.push({ conversation, turnIndex });
      });
    }
    return found;
  }

  touch(conversation: Conversation): void {
    conversation.updatedAt = new Date(this.now()).toISOString();
  }
}

const summaryOf = ({ id, title, createdAt, updatedAt, turns, publicUrl, pinnedAt }: Conversation): ConversationSummary => ({
  id, title, createdAt, updatedAt, turnCount: turns.length, shared: publicUrl !== null, pinned: !!pinnedAt,
});

const fold = (text: string): string => text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

/** About 120 characters of `text` around the first place `word` occurs. */
function snippetAround(text: string, word: string): string {
  const flat = text.replace(/\s+/g, ' ');
  const at = Math.max(0, fold(flat).indexOf(word));
  const start = Math.max(0, at - 50);
  return `${start > 0 ? '…' : ''}${flat.slice(start, start + 120).replace(/[#*_|]/g, '')}${start + 120 < flat.length ? '…' : ''}`;
}
