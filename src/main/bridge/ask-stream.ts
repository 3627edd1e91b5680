/**
 * Runs ask streams: validates the start, streams the service's answer to the renderer through
 * the coalescer, snapshots each cited signal, and keeps the turn in its conversation so
 * nothing is lost if the renderer goes away.
 */
import { replayMessages, type ReplayTurn } from '../services/conversations/replay-messages';
import { AskStreamArgs, fail, ok, STREAM_ID, type AskEvent, type BridgeError, type Result } from '../../shared/bridge-contract';
import { citationDetailOf } from '../../shared/citation';
import { applyAskEvent, endAnswer } from '../../shared/answer-rules';
import type { ConversationTurn } from '../../shared/conversation';
import { AnswerLimiter, type AnswerLimits } from '../services/conversations/answer-limits';
import type { RetailSignalClient } from '../services/service-client/api-client';
import type { ConversationStore } from '../services/conversations/conversation-store';
import type { ServiceConnection } from './service-connection';
import { createCoalescer, type StreamSink } from './stream-coalescer';
import { loggerFor } from '../logging/logger';

const log = loggerFor('bridge');

export type { StreamSink } from './stream-coalescer';

export interface AskStreamRunnerDeps {
  conversations: ConversationStore;
  connection: ServiceConnection;
  /** Interval over which stream deltas are coalesced into one message (see stream-coalescer). */
  coalesceMs?: number;
  /** Bounds on one answer (answer-limits.ts); tests lower them. */
  answerLimits?: AnswerLimits;
  /** A save of the conversation failed (the user is told if the disk refused it). */
  onSaveFailure?: (error: unknown) => void;
}

interface ActiveStream {
  controller: AbortController;
  sink: StreamSink;
  conversationId: string | null;
  /** Set when the stream has ended (done or error sent) and only its last save is pending. */
  ended?: boolean;
  /** Settles once the stream has ended and its conversation's last save is on disk (or failed). */
  finished?: Promise<void>;
}

type ParsedAskArgs = ReturnType<typeof AskStreamArgs.parse>;

export class AskStreamRunner {
  private readonly streams = new Map<string, ActiveStream>();
  /**
   * Aborted by abortAll() (quit): the cited signals' lookups under way end at once, so a
   * service that never answers one does not hold quit for the 3 s the stream waits for them.
   * A reader's own stop (abort) leaves them be: the citations so far still get their details.
   */
  private readonly stopping = new AbortController();

  constructor(private readonly deps: AskStreamRunnerDeps) {}

  /** Streams still answering (one that has ended and is only saving its last state is not). */
  get activeCount(): number {
    let count = 0;
    for (const stream of this.streams.values()) if (!stream.ended) count += 1;
    return count;
  }

  /** Resolves once every stream started so far has ended and saved its last state. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.streams.values()].map((stream) => stream.finished));
  }

  /** Whether an answer is streaming into this conversation right now. */
  isAnswering(conversationId: string): boolean {
    // A stream that has ended and is only saving no longer holds its conversation: the next
    // question may start at once (saves of one conversation are written one after another).
    return [...this.streams.values()].some((stream) => stream.conversationId === conversationId && !stream.ended);
  }

  /** Starts a stream; the caller has already subscribed its sink. */
  start(streamId: unknown, method: unknown, rawArgs: unknown, sink: StreamSink): Result<null> {
    const id = STREAM_ID.safeParse(streamId);
    if (!id.success) return fail({ code: 'invalid_argument', message: 'Invalid stream id.' });
    if (method !== 'ask') return fail({ code: 'unknown_method', message: `Unknown stream "${String(method)}".` });
    if (this.streams.has(id.data)) return fail({ code: 'invalid_argument', message: 'That stream id is already in use.' });
    const args = AskStreamArgs.safeParse(rawArgs);
    if (!args.success) return fail({ code: 'invalid_argument', message: args.error.issues[0]?.message ?? 'Invalid question.' });
    const client = this.deps.connection.requireClient();
    if (!client.ok) return client;
    const conversationId = args.data.conversationId ?? null;
    if (conversationId && !this.deps.conversations.get(conversationId)) {
      return fail({ code: 'not_found', message: 'That conversation no longer exists.' });
    }
    if (conversationId && this.isAnswering(conversationId)) {
      return fail({ code: 'invalid_argument', message: 'This conversation is already answering.' });
    }
    const controller = new AbortController();
    const stream: ActiveStream = { controller, sink, conversationId };
    this.streams.set(id.data, stream);
    stream.finished = this.run(id.data, client.value, args.data, controller, sink);
    return ok(null);
  }

  abort(streamId: unknown): void {
    if (typeof streamId !== 'string') return;
    this.streams.get(streamId)?.controller.abort();
  }

  /** A renderer went away: abort every stream it owned. */
  detachSink(sink: StreamSink): void {
    for (const stream of this.streams.values()) if (stream.sink === sink) stream.controller.abort();
  }

  /**
   * Aborts every stream and resolves once each has saved what it received: at quit the partial
   * answers are on disk before the data folder is let go. A stream leaves the map itself.
   */
  async abortAll(): Promise<void> {
    const streams = [...this.streams.values()];
    this.stopping.abort();
    for (const stream of streams) stream.controller.abort();
    await Promise.allSettled(streams.map((stream) => stream.finished));
  }

  private async run(streamId: string, client: RetailSignalClient, args: ParsedAskArgs, controller: AbortController, sink: StreamSink): Promise<void> {
    const { conversations } = this.deps;
    const coalescer = createCoalescer(streamId, sink, this.deps.coalesceMs ?? 4);
    const enqueue = coalescer.enqueue;

    // With a conversation, main keeps the turn: history and session come from it, and every
    // event is applied to the stored answer, so nothing is lost if the renderer goes away.
    const conversation = args.conversationId ? conversations.get(args.conversationId) : undefined;
    const begun = conversation ? await conversations.beginTurn(conversation.id, args.question, args.retryTurnId) : undefined;
    const turn = begun?.turn;
    // Earlier turns with their finished answers, replayed as `assistant` turns (replay-messages.ts).
    const history: ReplayTurn[] =
      conversation && turn
        ? conversation.turns
            .filter((t) => t.id !== turn.id && t.askedAt <= turn.askedAt)
            .map((t) => ({ question: t.question, answer: t.answer.status === 'done' || t.answer.status === 'incomplete' ? t.answer.text : null }))
        : args.history.map((question) => ({ question, answer: null }));
    const sessionId = conversation?.sessionId ?? args.sessionId;
    let lastSave = Date.now();
    const persist = async (force: boolean): Promise<void> => {
      if (!conversation) return;
      if (!force && Date.now() - lastSave < 1_000) return;
      lastSave = Date.now();
      conversations.touch(conversation);
      await conversations.save(conversation).catch((error: unknown) => {
        log.error('conversation save failed', error);
        this.deps.onSaveFailure?.(error);
      });
    };
    // A folder that refuses the write does not stop the answer: the user is told (onSaveFailure).
    begun?.saved.catch((error: unknown) => {
      log.error('conversation save failed', error);
      this.deps.onSaveFailure?.(error);
    });
    const details: Array<Promise<void>> = [];
    // SECURITY: every event from the service is counted against the answer's limits first.
    const limiter = new AnswerLimiter(this.deps.answerLimits);
    let overLimit: BridgeError | null = null;
    let sawText = false;
    const onServiceEvent = (event: AskEvent): void => {
      if (overLimit) return;
      const admission = limiter.admit(event);
      if (admission.ok) return onEvent(admission.event);
      overLimit = admission.error;
      if (admission.partial) onEvent(admission.partial);
      controller.abort(); // stop reading; the answer so far is kept below
    };
    const onEvent = (event: AskEvent): void => {
      if (event.type === 'text') sawText = true;
      if (turn && conversation) {
        turn.answer = applyAskEvent(turn.answer, event);
        if (event.type === 'meta') {
          conversation.sessionId = event.sessionId ?? conversation.sessionId;
          conversation.sessionSlug = event.sessionSlug ?? conversation.sessionSlug;
        }
        if (event.type === 'citation') details.push(this.snapshotCitation(client, event.citation.id, turn, enqueue, limiter));
        void persist(false);
      }
      enqueue(event);
    };

    try {
      if (conversation && turn) enqueue({ type: 'turn', conversationId: conversation.id, turnId: turn.id });
      const messages = replayMessages(history, args.question);
      const result = await client.askStream(
        { messages, ...(sessionId ? { session_id: sessionId } : {}) },
        { signal: controller.signal, onOpen: () => sink({ streamId, kind: 'open' }), onEvent: onServiceEvent },
      );
      // Citation snapshots finish (briefly) before the stream is declared done.
      await Promise.race([Promise.allSettled(details), new Promise((resolve) => setTimeout(resolve, 3_000))]);
      coalescer.flush();
      if (result.ok) {
        if (turn) turn.answer = endAnswer(turn.answer, null);
        sink({ streamId, kind: 'done' });
      } else {
        const { incomplete, ...error } = overLimit ? { ...(overLimit as BridgeError), incomplete: sawText } : result.error;
        if (turn) turn.answer = endAnswer(turn.answer, error);
        sink({ streamId, kind: 'error', error, incomplete });
        if (error.code === 'network') this.deps.connection.noteNetworkFailure();
      }
    } finally {
      coalescer.close();
      const stream = this.streams.get(streamId);
      if (stream) stream.ended = true;
      // (the stream stays in the map until saved, so abortAll and settled can wait for it)
      // Released only after the last save: "no active stream" means "everything is on disk".
      await persist(true);
      this.streams.delete(streamId);
    }
  }

  /**
   * Snapshots a cited signal with its source's health at the moment of citing, so the answer
   * can show "health when cited" later and read completely offline. Services without the
   * signal-lookup extension simply leave the citation as the stream described it.
   */
  private async snapshotCitation(client: RetailSignalClient, id: string, turn: ConversationTurn, enqueue: (event: AskEvent) => void, limiter: AnswerLimiter): Promise<void> {
    const result = await client.getSignal(id, this.stopping.signal);
    if (!result.ok) return;
    const { signal, source } = result.value;
    const event: AskEvent = { type: 'citation_detail', id, detail: citationDetailOf(signal, source, new Date().toISOString()) };
    // An oversized lookup is left out; the citation stays as the stream described it.
    if (!limiter.admit(event).ok) return;
    turn.answer = applyAskEvent(turn.answer, event);
    enqueue(event);
  }
}
