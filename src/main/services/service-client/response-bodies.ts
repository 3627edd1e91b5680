// Reading a service response's body with a bound: JSON, text, and a typed reader (split from api-client.ts).
import type { z } from 'zod';
import type { Result } from '../../../shared/bridge-contract';
import { fail, ok } from '../../../shared/bridge-contract';
import type { Read } from './service-readers';

/** Bounds on one non-streamed body: JSON (a 5,000-source health snapshot is about 2 MB) and a report. */
export const MAX_JSON_BYTES = 16 * 1_048_576;
export const MAX_REPORT_BYTES = 8 * 1_048_576;

/**
 * A JSON body, read with a bound: a crafted service cannot make main buffer an endless body
 * (SECURITY.md, answer caps). Malformed JSON reads as `undefined` for the caller's reader to
 * name what is missing; a body over the bound is a clear error.
 */
export async function readJson(response: Response, maxBytes = MAX_JSON_BYTES): Promise<Result<unknown>> {
  const text = await readBoundedText(response, maxBytes);
  if (!text.ok) return text;
  try {
    return ok(JSON.parse(text.value) as unknown);
  } catch {
    return ok(undefined);
  }
}

/**
 * Read JSON → read it → a typed Result: the one way a JSON answer becomes a value (the table's
 * calls and the tolerant readers of answers, research and health).
 */
export async function readWith<T>(response: Response, read: (body: unknown) => Read<T>, unreadable: (problem: string) => string): Promise<Result<T>> {
  const json = await readJson(response);
  if (!json.ok) return json;
  const value = read(json.value);
  return value.ok ? ok(value.value) : fail({ code: 'bad_response', message: unreadable(value.problem) });
}

/** A zod schema as a reader. */
export function bySchema<T>(schema: z.ZodType<T>): (body: unknown) => Read<T> {
  return (body) => {
    const parsed = schema.safeParse(body);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problem: parsed.error.issues[0]?.message ?? 'invalid' };
  };
}

/** The body as text, refusing it (by Content-Length, or while reading) past `maxBytes`. */
export async function readBoundedText(response: Response, maxBytes: number): Promise<Result<string>> {
  const tooLarge = (): Result<string> =>
    fail({ code: 'bad_response', message: `The service sent more than ${formatBytes(maxBytes)} in one response; the app stopped reading it.` });
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return tooLarge();
  }
  if (!response.body) return ok('');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch (error) {
      // The request's signal ended it (the caller stopped, or the deadline passed), or the
      // connection dropped: a Result like any other failure, not an exception in the caller.
      const name = (error as { name?: string } | null)?.name;
      if (name === 'TimeoutError') return fail({ code: 'timeout', message: (error as Error).message });
      return fail(name === 'AbortError' ? { code: 'aborted', message: 'Cancelled.' } : { code: 'network', message: 'The connection to the service dropped while reading its answer.' });
    }
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return tooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
  return ok(text + decoder.decode());
}

const formatBytes = (bytes: number): string => `${Math.round(bytes / 1_048_576)} MB`;
