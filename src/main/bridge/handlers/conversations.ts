/** Conversations kept by main: list, open, rename, delete/restore, share through the service. */
import { fail, ok } from '../../../shared/bridge-contract';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

const GONE = 'That conversation no longer exists.';

export function conversationHandlers({ conversations, streams, connection }: HandlerContext): HandlerMap<MethodsIn<'conversations'>> {
  return {
    'conversations.list': () => ok(conversations.list()),
    'conversations.get': ({ id }) => {
      const conversation = conversations.get(id);
      return conversation ? ok(conversation) : fail({ code: 'not_found', message: GONE });
    },
    'conversations.turns': ({ id, turnIds }) => {
      const conversation = conversations.get(id);
      if (!conversation) return fail({ code: 'not_found', message: GONE });
      const wanted = new Set(turnIds);
      return ok({ total: conversation.turns.length, turns: conversation.turns.filter((turn) => wanted.has(turn.id)) });
    },
    'conversations.create': async () => ok(await conversations.create()),
    'conversations.rename': async ({ id, title }) => {
      const conversation = await conversations.rename(id, title);
      return conversation ? ok(conversation) : fail({ code: 'not_found', message: GONE });
    },
    'conversations.search': ({ text }) => ok(conversations.search(text)),
    'conversations.pin': async ({ id, pinned }) => {
      const conversation = await conversations.pin(id, pinned);
      return conversation ? ok(conversation) : fail({ code: 'not_found', message: GONE });
    },
    'conversations.delete': async ({ id }) => {
      if (streams.isAnswering(id)) {
        return fail({ code: 'invalid_argument', message: 'Stop the running answer before deleting this conversation.' });
      }
      return (await conversations.remove(id)) ? ok({ deleted: true }) : fail({ code: 'not_found', message: GONE });
    },
    'conversations.restore': async ({ id }) => {
      const conversation = await conversations.restore(id);
      return conversation ? ok(conversation) : fail({ code: 'not_found', message: 'Nothing to restore.' });
    },
    'conversations.share': async ({ id, public: isPublic }) => {
      const conversation = conversations.get(id);
      if (!conversation) return fail({ code: 'not_found', message: GONE });
      if (!conversation.sessionId) return fail({ code: 'invalid_request', message: 'Ask a question first: there is no session to share yet.' });
      const client = connection.requireClient();
      if (!client.ok) return client;
      const result = await client.value.setSessionVisibility(conversation.sessionId, isPublic);
      if (!result.ok) {
        return fail(result.error.code === 'not_found' ? { ...result.error, message: 'The service no longer knows this session (it may have restarted), so it cannot be shared.' } : result.error);
      }
      conversation.publicUrl = result.value.url;
      await conversations.save(conversation);
      return ok({ publicUrl: result.value.url });
    },
  };
}
