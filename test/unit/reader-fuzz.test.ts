/**
 * Issue 44 item 6: readers of untrusted bytes, fuzzed with fast-check. Random and mutated inputs
 * to the feed path, the article reader, the SSE reader and the library bundle reader give a
 * result or a named error (FeedFailure, SseStreamError, BundleError), never an exception from
 * deep inside. Runs are kept small (seconds); the seeds fast-check prints reproduce a failure.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BundleError, exportBundle, readBundle } from '../../src/main/services/library/library-bundle';
import { readSseStream, SseStreamError } from '../../src/main/services/service-client/sse-reader';
import { readArticle } from '../../src/service/feed/document-readers';
import { FeedFailure } from '../../src/service/feed/feed-failure';
import { readFeedBody } from '../../src/service/feed/feed-items';

const CORPUS = join(__dirname, '../fixtures/feed-conformance/corpus');
const FEEDS = readdirSync(CORPUS, { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.xml'))
  .sort()
  .map((name) => readFileSync(join(CORPUS, name)));
const PAGES = ['meta-author-published', 'json-ld', 'time-element'].map((page) => readFileSync(join(__dirname, '../fixtures/article-reader', page, 'source.html'), 'utf8'));

/** Pieces of markup a mutation splices in: the quirks real documents have. */
const TOKENS = ['<', '>', '&', '&amp;', '&nbsp;', '&#0;', '&#xD800;', ']]>', '<![CDATA[', '<!--', '-->', '</item>', '<item>', '<entry>', '</channel>', '<?xml version="1.0" encoding="utf-16"?>', '<!DOCTYPE rss>', '\u0000', '\uFEFF', '\uFFFD', '"', "'", 'xmlns:a="', 'type="xhtml"', 'mode="base64"', '<div xmlns="http://www.w3.org/1999/xhtml">', '<script>', '<time datetime="', '{"@type":"NewsArticle","author":', '# ', '**', '](', '\n- '];

/** A document mutated: bytes flipped, cut, duplicated, or markup spliced in at random places. */
function mutated(base: Buffer | string): fc.Arbitrary<Buffer> {
  const bytes = Buffer.isBuffer(base) ? base : Buffer.from(base);
  const edit = fc.oneof(
    fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), token: fc.constantFrom(...TOKENS) }),
    fc.record({ kind: fc.constant('repeat' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 200 }) }),
  );
  return fc.array(edit, { minLength: 1, maxLength: 8 }).map((edits) => {
    let out = Buffer.from(bytes);
    for (const step of edits) {
      const at = out.length === 0 ? 0 : step.at % out.length;
      if (step.kind === 'flip' && out.length > 0) out[at] = step.byte;
      else if (step.kind === 'cut') out = out.subarray(0, at);
      else if (step.kind === 'splice') out = Buffer.concat([out.subarray(0, at), Buffer.from(step.token), out.subarray(at)]);
      else if (step.kind === 'repeat') out = Buffer.concat([out.subarray(0, at + step.length), out.subarray(at)]);
    }
    return out;
  });
}

function onlyNamed(run: () => unknown, named: new (...args: never[]) => Error): void {
  try {
    run();
  } catch (error) {
    if (!(error instanceof named)) throw error;
  }
}

describe('fuzzed readers give results or named errors only', () => {
  it('the feed path (decode, parse, plain text) on random bytes and mutated feeds', () => {
    const input = fc.oneof(fc.uint8Array({ maxLength: 2_000 }).map((bytes) => Buffer.from(bytes)), fc.string({ maxLength: 2_000 }).map((text) => Buffer.from(`<rss>${text}`)), ...FEEDS.map(mutated));
    fc.assert(
      fc.property(input, fc.constantFrom('application/rss+xml', 'text/xml; charset=iso-8859-1', 'application/atom+xml; charset=utf-16', 'application/json', 'text/html'), (bytes, contentType) => {
        onlyNamed(() => readFeedBody(bytes, contentType, 'https://fuzz.example.in/feed.xml'), FeedFailure);
      }),
      { numRuns: 400 },
    );
  });

  it('the article reader on random text and mutated pages', () => {
    const input = fc.oneof(fc.string({ maxLength: 2_000 }), ...PAGES.map((page) => mutated(page).map((bytes) => bytes.toString('utf8'))));
    fc.assert(
      fc.property(input, (html) => {
        const article = readArticle(html, 'https://fuzz.example.in/story');
        expect(typeof article.title).toBe('string');
        expect(typeof article.text).toBe('string');
      }),
      { numRuns: 60 },
    );
  });

  it('the SSE reader on random chunks', async () => {
    const chunk = fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.constantFrom('data: {"a":1}\n\n', 'event: x\r\n', ': keep-alive\n', 'data: é', '\r', '\n\n', 'retry: x\n', 'data:\n\n').map((text) => new TextEncoder().encode(text)));
    await fc.assert(
      fc.asyncProperty(fc.array(chunk, { maxLength: 20 }), fc.integer({ min: 16, max: 4_096 }), async (chunks, maxEventBytes) => {
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            for (const piece of chunks) controller.enqueue(piece);
            controller.close();
          },
        });
        const messages: string[] = [];
        try {
          await readSseStream(body, { maxEventBytes, stallTimeoutMs: 5_000, onMessage: (message) => messages.push(message.data) });
        } catch (error) {
          if (!(error instanceof SseStreamError)) throw error;
        }
        for (const data of messages) expect(typeof data).toBe('string');
      }),
      { numRuns: 200 },
    );
  });

  it('the library bundle reader on random bytes and mutated bundles', () => {
    const bundle = Buffer.from(exportBundle([], 'fuzz', Date.UTC(2026, 10, 1)));
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 1_000 }).map((bytes) => Buffer.from(bytes)), mutated(bundle)), (bytes) => {
        onlyNamed(() => readBundle(bytes), BundleError);
      }),
      { numRuns: 300 },
    );
  });
});
