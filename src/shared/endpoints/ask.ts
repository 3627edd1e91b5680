/** POST /api/v1/ask: JSON or a server-sent event stream, with each frame typed. */
import { AskRequest, SSE_EVENTS } from '../service-schemas';
import { area, endpoint } from './define';
import { ref, RATE_HEADER, type JsonObject } from '../openapi/common';

const SIGNAL = 'sig_3f9a0c1d2e4b5a67';
const SESSION = { session_id: 'ses_8c1d2e3f4a5b6c7d', session_slug: 'zudio-stores-pune-8c1d2e' };

/** Component id of each event's payload schema (see service-schemas.ts). */
const payloadId = (event: string): string => `SseEvent_${event.replace(/\./g, '_')}`;
const frameId = (event: string): string => `AskStreamFrame_${event.replace(/\./g, '_')}`;

/** One schema per frame (`{event, data}`) and their union, so generators type each frame. */
function frameSchemas(): Record<string, JsonObject> {
  const frames: Record<string, JsonObject> = {};
  for (const event of Object.keys(SSE_EVENTS)) {
    frames[frameId(event)] = {
      type: 'object',
      description: `An \`event: ${event}\` frame; \`data\` is its JSON payload.`,
      properties: { event: { type: 'string', const: event }, data: ref(payloadId(event)) },
      required: ['event', 'data'],
    };
  }
  frames.AskStreamFrame = {
    description:
      'One frame of the ask stream, as an SSE client hands it over: the `event:` name and the `data:` line parsed as JSON. ' +
      'Unknown event names may appear (ignore them); lines starting with `:` and `ping` events are keep-alives.',
    oneOf: Object.keys(SSE_EVENTS).map((event) => ref(frameId(event))),
  };
  return frames;
}

const STREAM_EXAMPLE = [
  ['message_start', { type: 'message_start', message: { id: 'msg_1a2b3c4d5e6f7a8b', ...SESSION } }],
  ['clarity.confidence_updated', { type: 'clarity.confidence_updated', confidence: 0.58 }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  [
    'clarity.citation_emitted',
    {
      type: 'clarity.citation_emitted',
      citation: {
        id: SIGNAL,
        title: 'Zudio opens 14 stores across Pune',
        source_id: 'src_trent_newsroom',
        source_name: 'Trent newsroom',
        published_at: '2026-10-28T09:30:00.000Z',
        url: 'https://example.com/trent/zudio-pune',
        slug: 'zudio-opens-14-stores-across-pune-3f9a0c',
        snippet: 'Trent\'s value fashion chain added 14 stores in Pune in October.',
      },
    },
  ],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `Zudio opened 14 stores [${SIGNAL}]` } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_stop', { type: 'message_stop' }],
]
  .map(([event, data]) => `event: ${event as string}\ndata: ${JSON.stringify(data)}\n\n`)
  .join('');

const SSE_DESCRIPTION =
  'Server-sent events (`stream: true`). Each frame is `event: <name>` and `data: <JSON>`; the payload schema of each ' +
  'event is in `x-events` (and `AskStreamFrame` is the union of all frames). Order: `message_start`, ' +
  '`clarity.confidence_updated`, `content_block_start`, then `content_block_delta` frames interleaved with ' +
  '`clarity.citation_emitted` (sent before the first delta carrying its `[sig_…]` marker) and further ' +
  '`clarity.confidence_updated`, then `content_block_stop`, `clarity.research_promotion_available` (when a report would ' +
  'help) and `message_stop`, which ends the answer. A failure mid-stream is an `error` frame, after which the stream ' +
  'ends. Lines starting with `:` are keep-alive comments. Extensions (claim verification): every sentence is checked ' +
  'against the signals it cites before it is sent; `clarity.claim_supported` gives the span of the cited signal\'s body ' +
  'that supports a sentence, `clarity.claim_removed` names a sentence that was removed (none of its text is ever sent) ' +
  'and why, `clarity.composer_fallback` says a model failed and the extractive composer answered (with ' +
  '`replaces_text: true` when the model\'s text was already sent: the client clears it, and the extractive answer ' +
  'follows in its place, its citations announced again); ' +
  '`message_start.message.composer` names the composer. Extension (conflicting figures): when the answer cites two ' +
  'sources that state different figures for the same measure, entity, place and day (app ranks, store counts, revenue, ' +
  'order-value growth), the text says so under "Sources disagree" and `clarity.conflicts_flagged` (after ' +
  '`content_block_stop`, before `message_stop`) lists them as in the JSON body\'s `conflicts`.';

export const askArea = area({
  tags: [{ name: 'Ask', description: 'Cited answers to questions about India\'s retail sector, as JSON or streamed.' }],
  components: { schemas: frameSchemas() },
  endpoints: {
    ask: endpoint({
      method: 'POST',
      path: '/api/v1/ask',
      tag: 'Ask',
      summary: 'Answer a question with citations',
      description:
        'Answers the last user turn of `messages` from the signal corpus; every claim carries an inline `[sig_…]` marker ' +
        'listed in `citations`. Anonymous callers are allowed. Send earlier user turns in `messages`, or `session_id` to ' +
        'continue a session. `stream: false` (the default) answers `application/json`; `stream: true` answers ' +
        '`text/event-stream`: the response `Content-Type` tells the two apart.',
      access: 'anyone',
      limit: 'ask',
      requestBody: {
        schema: AskRequest,
        example: { messages: [{ role: 'user', content: 'How many stores did Zudio open in Pune last month?' }], stream: false },
      },
      responses: {
        '200': {
          description: 'The answer: JSON when `stream` is false or absent; an SSE stream when `stream` is true.',
          headers: RATE_HEADER,
          content: {
            'application/json': {
              schema: ref('AskResponse'),
              example: {
                content: `Zudio opened 14 stores in Pune in October [${SIGNAL}].`,
                citations: [SIGNAL],
                confidence: 0.72,
                ...SESSION,
                composer: { backend: 'extractive' },
                verification: { sentences: 1, supported: 1, removed: [] },
                support: [{ sentence: `Zudio opened 14 stores in Pune in October [${SIGNAL}].`, citation: SIGNAL, start: 0, end: 62 }],
              },
            },
            'text/event-stream': {
              schema: { type: 'string', description: SSE_DESCRIPTION },
              example: STREAM_EXAMPLE,
              'x-events': Object.fromEntries(Object.keys(SSE_EVENTS).map((event) => [event, ref(payloadId(event))])),
              'x-frame-schema': ref('AskStreamFrame'),
            },
          },
        },
      },
      errors: {
        400: '`messages` missing, empty, over 50 turns, a turn that is not `user`, or content over 8,000 characters.',
        503: '`unavailable`: the answer index is unavailable; try again later.',
      },
    }),
  },
});
