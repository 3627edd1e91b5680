/**
 * The main-process logger redacts credentials before anything is written: in messages, in
 * structured detail, in errors, whatever the field is called.
 */
import { Writable } from 'node:stream';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger, loggerFor, redactSecrets, setLogDestination } from '../../src/main/logging/logger';

const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbmFseXN0QGV4YW1wbGUuY29tIn0.c2lnbmF0dXJlLWJ5dGVz';
const API_KEY = 'ck_live_4f9a8b7c6d5e4f3a2b1c';
const OPAQUE = 'opaque-Secret-Value-123456';

function capture(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

describe('redactSecrets', () => {
  it.each([
    [`Authorization: Bearer ${OPAQUE}`, OPAQUE],
    [`authorization=${OPAQUE}`, OPAQUE],
    [`X-API-Key: ${OPAQUE}`, OPAQUE],
    [`x-api-key=${OPAQUE}`, OPAQUE],
    [`http://127.0.0.1:5178/?token=${OPAQUE}&x=1`, OPAQUE],
    [`https://svc.example/report?access_token=${OPAQUE}`, OPAQUE],
    [`https://user:${OPAQUE}@svc.example/`, OPAQUE],
    [`the service refused ${JWT} as expired`, JWT],
    [`key ${API_KEY} rejected`, API_KEY],
    ['webhook secret whsec_N3wS3cr3tAbCdEfGhIjKlMnOpQrStUv shown once', 'whsec_N3wS3cr3tAbCdEfGhIjKlMnOpQrStUv'],
    [`{"authorization":"Bearer ${OPAQUE}"}`, OPAQUE],
    // Serialised headers and bodies (a request dumped as JSON, a JS literal in a stack).
    [`{"Authorization":"Basic ${OPAQUE}"}`, OPAQUE],
    [`{"x-api-key":"${OPAQUE}"}`, OPAQUE],
    [`{ 'X-API-Key': '${OPAQUE}' }`, OPAQUE],
    [`{"Proxy-Authorization": "Basic ${OPAQUE}"}`, OPAQUE],
    [`{"token":"${OPAQUE}","user":"a"}`, OPAQUE],
    [`{"password": "${OPAQUE}"}`, OPAQUE],
  ])('masks %s', (input, secret) => {
    const out = redactSecrets(input);
    expect(out).not.toContain(secret);
    expect(out).toContain('[redacted]');
  });

  it('leaves ordinary text alone', () => {
    const text = 'Footfall in Pune malls rose 4.2% (sig_00000000000000ab); see https://example.com/a?page=2';
    expect(redactSecrets(text)).toBe(text);
  });
});

describe('createLogger', () => {
  it('writes no credential from a message, a structured detail, a header object or an error', () => {
    const out = capture();
    const logger = createLogger({ destination: out.stream });
    logger.info(`calling with Authorization: Bearer ${JWT}`);
    logger.warn({ headers: { authorization: `Bearer ${OPAQUE}`, 'x-api-key': API_KEY, accept: 'text/event-stream' } }, 'request');
    logger.error({ err: new Error(`upstream said token=${OPAQUE} is bad`) }, 'failed');
    logger.info({ nested: { deeper: { secret: OPAQUE, credential: { secret: OPAQUE } } }, url: `http://127.0.0.1:1/?token=${OPAQUE}` }, 'state');
    logger.info({ note: `key ${API_KEY}` }, `jwt ${JWT}`);
    const written = out.text();
    for (const secret of [JWT, OPAQUE, API_KEY]) expect(written).not.toContain(secret);
    expect(written).toContain('text/event-stream'); // the rest of the line survives
    expect(written.split('\n').filter(Boolean)).toHaveLength(5);
  });

  it('scoped loggers write through the destination set later, redacted', () => {
    const out = capture();
    const log = loggerFor('bridge'); // made before the destination, as modules do at import
    setLogDestination(out.stream);
    log.error('conversations.create failed', new Error(`EACCES with x-api-key: ${API_KEY}`));
    expect(out.text()).toContain('"scope":"bridge"');
    expect(out.text()).toContain('conversations.create failed');
    expect(out.text()).not.toContain(API_KEY);
  });
});

describe('all main-process logging goes through the logger', () => {
  it('no file in src/main but the CLI uses console', async () => {
    const offenders: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) await walk(path);
        else if (/\.tsx?$/.test(entry.name) && !path.endsWith(join('browser-host', 'cli.ts'))) {
          if (/\bconsole\.(log|info|warn|error|debug)\(/.test(await readFile(path, 'utf8'))) offenders.push(path);
        }
      }
    };
    await walk(join(import.meta.dirname, '../../src/main'));
    expect(offenders).toEqual([]);
  });
});
