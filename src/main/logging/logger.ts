/**
 * The one main-process logger (pino). Everything main logs goes through here, so credentials are
 * removed in one place before anything is written anywhere (terminal now, files later).
 *
 * SECURITY: two layers. Keys that name a secret (authorization, x-api-key, token, secret,
 * password, cookie) are censored whatever their value; every string, messages included, is
 * passed through `redactSecrets`, which masks bearer credentials, API-key headers, `token=` in
 * URLs, JWT-shaped strings and `ck_` keys. ESLint keeps `console` out of src/main (the CLI's
 * own terminal lines excepted).
 */
import pino, { type DestinationStream, type Logger } from 'pino';

const CENSOR = '[redacted]';

/** Object keys whose value is a secret, whatever it looks like. */
const SECRET_KEY = /^(?:authorization|proxy-authorization|x-api-key|api[-_]?key|token|access[-_]?token|refresh[-_]?token|secret|password|cookie|set-cookie|credential)$/i;

const SECRET_PATTERNS: Array<[RegExp, string]> = [
  // `Authorization: Bearer …`, `Basic …` in headers or prose.
  // Also as serialised JSON or a JS literal: `"Authorization":"Basic …"`, `'x-api-key': '…'`.
  [/\b((?:proxy-)?authorization["']?\s*[:=]\s*["']?)(?:(bearer|basic)\s+)?[^\s,;'"}]+/gi, `$1$2 ${CENSOR}`],
  [/\b(bearer)\s+[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${CENSOR}`],
  // `X-API-Key: …` / `x-api-key=…`.
  [/\b(x-api-key["']?\s*[:=]\s*["']?)[^\s,;'"}]+/gi, `$1${CENSOR}`],
  // Secret-named fields in serialised JSON: `"token":"…"`, `"password": "…"`, `"cookie":"…"`.
  [/(["'](?:(?:access_|refresh_|id_)?token|api[-_]?key|secret|password|cookie|set-cookie|credential)["']\s*:\s*["'])[^"']*/gi, `$1${CENSOR}`],
  // `token=…` (and access_token, api_key, key) in URLs and query strings.
  [/([?&#;\s]|^)((?:access_|refresh_|id_)?token|api[-_]?key|secret|password)=[^&#\s'"]*/gi, `$1$2=${CENSOR}`],
  // Userinfo in a URL: scheme://user:pass@host.
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+:[^/\s@]+@/gi, `$1${CENSOR}@`],
  // JWT-shaped: three base64url parts, the first a JSON header (`eyJ`).
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, CENSOR],
  // Retail Signal API keys.
  [/\bck_[A-Za-z0-9_-]{6,}/g, CENSOR],
  // Webhook signing secrets (shown once in Settings › Developer, never logged).
  [/\bwhsec_[A-Za-z0-9_-]{6,}/g, CENSOR],
];

/** Masks credentials in free text. Idempotent, and safe on text that has none. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  // `$2` is empty when no scheme word followed `authorization:`; tidy the double space.
  return out.replace(/(authorization["']?\s*[:=]\s*["']?) +\[/gi, '$1[');
}

/** A deep copy with secret-named keys censored and every string redacted. */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 6) return '[…]';
  if (value instanceof Error) {
    return { type: value.name, message: redactSecrets(value.message), ...(value.stack ? { stack: redactSecrets(value.stack) } : {}) };
  }
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  if (value instanceof Headers) return redactValue(Object.fromEntries(value.entries()), depth);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = SECRET_KEY.test(key) ? CENSOR : redactValue(item, depth + 1);
  return out;
}

export interface LoggerOptions {
  /** Where lines go; default stderr. Packaging adds files here (pino.multistream). */
  destination?: DestinationStream;
  level?: string;
}

/** A pino logger with both redaction layers. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? process.env.CLARITY_LOG_LEVEL ?? 'info',
      base: undefined,
      // Layer 1: secret-named fields, at the depths a request or an error puts them.
      redact: {
        paths: [
          'authorization', 'headers.authorization', '*.headers.authorization', 'headers["x-api-key"]', '*.headers["x-api-key"]',
          '["x-api-key"]', 'token', '*.token', 'secret', '*.secret', 'credential', '*.credential', 'cookie', 'headers.cookie',
        ],
        censor: CENSOR,
      },
      hooks: {
        // Layer 2: every argument, the message string included, before pino formats it.
        logMethod(args, method) {
          method.apply(this, args.map((arg) => redactValue(arg)) as Parameters<typeof method>);
        },
      },
    },
    options.destination ?? pino.destination({ dest: 2, sync: true }),
  );
}

let root: Logger = createLogger();

/** Replaces where main's log lines go (packaging: rotated files as well as stderr). */
export function setLogDestination(destination: DestinationStream, level?: string): void {
  root = createLogger({ destination, level });
}

export interface ScopedLogger {
  debug(message: string, detail?: unknown): void;
  info(message: string, detail?: unknown): void;
  warn(message: string, detail?: unknown): void;
  error(message: string, detail?: unknown): void;
}

/**
 * A logger for one part of main (`[bridge]`, `[health]`, …). It resolves the root at each call,
 * so a destination set later (log files) applies to loggers made at import time.
 */
export function loggerFor(scope: string): ScopedLogger {
  const write = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string, detail?: unknown) => {
    if (detail === undefined) root[level]({ scope }, message);
    else root[level]({ scope, detail }, message);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
