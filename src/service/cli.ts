/**
 * `npm run service` — runs the local Retail Signal service alone.
 *   --port N (default 4318; 0 = a free port)   --pace-ms N (delay per SSE delta; 0 for tests)
 *   --time-zone ZONE (the analyst's IANA time zone: dates in answers and reports are its calendar's;
 *     default Asia/Kolkata; a request's `time_zone` wins for that answer)
 *   --research-ms N (tests: a research run's least duration)    --seed N  --signals N  --no-live
 *   --data-dir DIR (keeps the identity provider's signing key)   --enable-faults (tests only)
 *   --ask-limit N (benchmarks only: asks per 60 s instead of the table's 30)
 *   --sources N (pad the roster to N sources)   --health-max-age S (health cache lifetime; 60)
 *   --dev-tokens (serve POST /api/v1/dev/token; on by default when supervised by the app)
 *   --allow-private-webhooks (deliver to loopback/private addresses: tests, local receivers)
 *   --live-ms N (milliseconds between live-feed arrivals; default 4000)
 *   --model-url URL --model NAME (answers written by an OpenAI-compatible chat-completions API;
 *     --model-price-in/--model-price-out US$ per million tokens: research runs' cost_usd;
 *     key from CLARITY_MODEL_API_KEY; --model-timeout-ms, --model-silence-ms; default: no model)
 *   --mark-unsupported (keep sentences that fail verification, marked, instead of removing them)
 *   --sources-file FILE (JSON {"sources":[…]}: the feeds to fetch; see docs/feed.md)
 *   --no-sample (start without the synthetic sample corpus)
 *   --replay-sample (demos/tests: replay the sample as arrivals with simulated source health,
 *     labelled; by default the sample is a fixed snapshot that reports no health)
 *   --allow-private-sources (fetch sources on loopback/private addresses: tests, local feeds)
 *   --allow-source-host HOST (repeatable: fetch sources on this one host even where its address is
 *     private, loopback or link-local; the app passes the intranet hosts its analyst consented to)
 *   --contact-url URL (named in the feed's User-Agent; default: the project's page)
 *   --database postgres://user:pass@host:5432/db (keep state in PostgreSQL: a team server; default:
 *     the embedded database in <data dir>/database, backed up to <data dir>/database-backups)
 *   --jwt-issuer ISS --jwt-audience AUD --jwks-url URL (accept only the company identity provider's
 *     JWTs; development tokens off)   --host 0.0.0.0 (or any address: only with --database and the
 *     three JWT settings; TLS belongs to a reverse proxy, see docs/team-server.md)
 *   --public-url https://… (a team server's address behind its proxy: the OpenAPI document's server)
 *   --trust-proxy ADDR[,ADDR] (the proxy's addresses: its X-Forwarded-For names the caller)
 * `npm run service -- token --user you@example.com [--ttl-s N] [--tier free|pro|team] [--role admin] [--data-dir DIR]` prints a bearer
 * JWT signed with the key in DIR: use the data directory of the service that will check it.
 * Prints one JSON line `{"event":"listening","url":…,"index":"warming"}` on stdout for supervisors
 * as soon as it listens, `{"event":"index_progress","held":N,"total":M}` about once a second while
 * its index loads, then `{"event":"index_ready",…}` once every signal is held (asks are
 * answered from the database's full-text search until then: server-warm-up.ts).
 */
import { isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readFile } from 'node:fs/promises';
import { SourcesFile, urlProblem, type SourceDefinitionInput } from './feed/source-registry';
import { ConfigurationError, DevIdentityProvider } from './auth';
import { LIMIT_TABLE } from './rate-limiter';
import { DEFAULT_PACE_MS, startService } from './server';
import { WarmUpStopped } from './server-warm-up';
import { DatabaseStartError } from './store/database';
import { defaultServiceDataDir, namesNoFolder } from './data-dir';
import { DEFAULT_TIME_ZONE, timeZoneError, timeZoneOrNull } from './world/time-zone';

const { values, positionals } = parseArgs({
  options: {
    port: { type: 'string', default: '4318' },
    host: { type: 'string', default: '127.0.0.1' },
    'pace-ms': { type: 'string', default: String(DEFAULT_PACE_MS) },
    'time-zone': { type: 'string' },
    'research-ms': { type: 'string' },
    seed: { type: 'string' },
    signals: { type: 'string' },
    'no-live': { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
    'enable-faults': { type: 'boolean', default: false },
    'dev-tokens': { type: 'boolean', default: false },
    // Benchmarks only: raise the ask limit (the default is exactly the interface's table).
    'ask-limit': { type: 'string' },
    // Tests only: a bigger roster, a shorter health cache lifetime.
    sources: { type: 'string' },
    'health-max-age': { type: 'string' },
    'allow-private-webhooks': { type: 'boolean', default: false },
    'live-ms': { type: 'string' },
    'model-url': { type: 'string' },
    model: { type: 'string' },
    'model-timeout-ms': { type: 'string' },
    'model-silence-ms': { type: 'string' },
    'model-price-in': { type: 'string' },
    'model-price-out': { type: 'string' },
    'mark-unsupported': { type: 'boolean', default: false },
    'sources-file': { type: 'string' },
    'no-sample': { type: 'boolean', default: false },
    'replay-sample': { type: 'boolean', default: false },
    'allow-private-sources': { type: 'boolean', default: false },
    'allow-source-host': { type: 'string', multiple: true },
    'contact-url': { type: 'string' },
    role: { type: 'string' },
    database: { type: 'string' },
    'jwt-issuer': { type: 'string' },
    'jwt-audience': { type: 'string' },
    'jwks-url': { type: 'string' },
    'public-url': { type: 'string' },
    'trust-proxy': { type: 'string' },
    user: { type: 'string' },
    tier: { type: 'string' },
    'ttl-s': { type: 'string' },
  },
  allowPositionals: true,
});

/** A price in US$ per million tokens (`--model-price-in 0.15`). */
function price(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0 || value.trim() === '') {
    console.error(`--${name} must be a price in US$ per million tokens ≥ 0, e.g. 0.15, got "${value}"`);
    process.exit(2);
  }
  return parsed;
}

const SOURCE_HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,62})?(?:\.[a-z0-9](?:[a-z0-9-]{0,62})?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) {
    console.error(`--${name} must be a whole number ≥ 0, got "${value}"`);
    process.exit(2);
  }
  return parsed;
}

/** --allow-source-host values: host names or addresses (an optional :port), lower-cased; a bad one stops the start. */
function allowedSourceHosts(hosts: string[]): string[] {
  return hosts.map((raw) => {
    const host = raw.trim().toLowerCase();
    if (!SOURCE_HOST.test(host)) {
      console.error(`--allow-source-host takes a host name or address (e.g. intranet.example.com, 10.0.0.5, [fd00::1]), got "${raw}"`);
      process.exit(2);
    }
    return host;
  });
}

if (values['data-dir'] !== undefined && namesNoFolder(values['data-dir'])) {
  console.error(`--data-dir names no folder ("${values['data-dir']}": an unset variable?). Give a folder, or leave --data-dir out for the default, ${defaultServiceDataDir()}.`);
  process.exit(2);
}
const dataDir = values['data-dir'] ?? defaultServiceDataDir();

const timeZone = values['time-zone'] === undefined ? DEFAULT_TIME_ZONE : timeZoneOrNull(values['time-zone']);
if (!timeZone) {
  console.error(`--time-zone: ${timeZoneError(values['time-zone']!)}`);
  process.exit(2);
}

const jwtSettings = [values['jwt-issuer'], values['jwt-audience'], values['jwks-url']];
if (jwtSettings.some((value) => value !== undefined) && !jwtSettings.every((value) => value)) {
  console.error('--jwt-issuer, --jwt-audience and --jwks-url go together: give all three.');
  process.exit(2);
}
const companyIdentity = values['jwks-url'] ? { issuer: values['jwt-issuer']!, audience: values['jwt-audience']!, jwksUrl: values['jwks-url'] } : null;

if (positionals[0] === 'token') {
  if (companyIdentity) {
    console.error("A service using the company's identity provider does not accept development tokens: sign in with the company's provider instead.");
    process.exit(2);
  }
  const email = values.user?.trim();
  if (!email || !/^[^@\s]+@[^@\s]+$/.test(email)) {
    console.error('Usage: npm run service -- token --user you@example.com [--ttl-s 43200] [--tier free|pro|team] [--data-dir DIR]');
    process.exit(2);
  }
  if (values.tier !== undefined && !['free', 'pro', 'team'].includes(values.tier)) {
    console.error('--tier must be free, pro or team');
    process.exit(2);
  }
  if (values.role !== undefined && values.role !== 'admin') {
    console.error('--role must be admin (leave it out for an ordinary user)');
    process.exit(2);
  }
  const idp = await DevIdentityProvider.open(dataDir);
  process.stdout.write(`${await idp.issueToken(email, integer('ttl-s', values['ttl-s']) ?? 12 * 3600, Date.now(), { tier: values.tier, role: values.role })}\n`);
  // The token is valid only for a service using this data directory (the app's embedded service
  // uses <app data dir>/local-service): say which one, on stderr so stdout stays the token.
  process.stderr.write(`Signed with the key in ${dataDir}; only a service started with --data-dir ${dataDir} accepts it.\n`);
  process.exit(0);
}

const host = values.host ?? '127.0.0.1';
if (!['127.0.0.1', 'localhost', '::1'].includes(host) && !(values.database && companyIdentity)) {
  // SECURITY: the development service signs its own tokens; only a team server (PostgreSQL and the
  // company's identity provider, dev tokens off) may listen beyond this machine.
  console.error('--host other than loopback (127.0.0.1, localhost or ::1) needs --database and --jwt-issuer, --jwt-audience and --jwks-url.');
  process.exit(2);
}

const publicUrl = values['public-url'];
if (publicUrl !== undefined && !/^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(publicUrl)) {
  console.error(`--public-url must be the http:// or https:// address analysts reach, got "${publicUrl}"`);
  process.exit(2);
}
const trustProxy = values['trust-proxy']?.split(',').map((address) => address.trim()).filter(Boolean);
if (trustProxy && !trustProxy.every((address) => isIP(address.split('/')[0]!) !== 0)) {
  console.error(`--trust-proxy takes the reverse proxy's IP addresses (or CIDR ranges), comma-separated, got "${values['trust-proxy']}"`);
  process.exit(2);
}

// Only these flags turn a model on (no OPENAI_BASE_URL or the like), so the default stays offline.
if (Boolean(values['model-url']) !== Boolean(values.model)) {
  console.error('--model-url and --model go together, e.g. --model-url http://127.0.0.1:11434/v1 --model llama3.1');
  process.exit(2);
}
if (values['model-url'] && !/^https?:\/\/[^\s]+$/.test(values['model-url'])) {
  console.error(`--model-url must be an http:// or https:// URL, got "${values['model-url']}"`);
  process.exit(2);
}
if ((values['model-price-in'] === undefined) !== (values['model-price-out'] === undefined) || (values['model-price-in'] !== undefined && !values.model)) {
  console.error('--model-price-in and --model-price-out go together, with --model-url and --model, e.g. --model-price-in 0.15 --model-price-out 0.6');
  process.exit(2);
}
const composer = {
  unsupportedClaims: values['mark-unsupported'] ? ('mark' as const) : ('remove' as const),
  ...(values['model-url'] && values.model
    ? {
        model: {
          url: values['model-url'],
          model: values.model,
          apiKey: process.env.CLARITY_MODEL_API_KEY || undefined,
          timeoutMs: integer('model-timeout-ms', values['model-timeout-ms']),
          silenceMs: integer('model-silence-ms', values['model-silence-ms']),
          // Research costs a run by the API's token usage at these prices; unset, its cost is null.
          ...(values['model-price-in'] !== undefined && values['model-price-out'] !== undefined
            ? { prices: { inPerMillionUsd: price('model-price-in', values['model-price-in'])!, outPerMillionUsd: price('model-price-out', values['model-price-out'])! } }
            : {}),
        },
      }
    : {}),
};
/** A URL for the terminal and logs: no userinfo, no query (either may carry a key). */
function shownUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  return parsed.toString();
}

/** The sources file, checked whole before the service starts: a bad entry is named, nothing starts. */
async function readSourcesFile(file: string | undefined): Promise<SourceDefinitionInput[]> {
  if (!file) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    console.error(`--sources-file ${file}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  }
  const checked = SourcesFile.safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    console.error(`--sources-file ${file}: \`${issue?.path.join('.') || 'file'}\` ${issue?.message ?? 'is invalid'} (expected {"sources":[{"name","kind","url",…}]})`);
    process.exit(2);
  }
  for (const [at, source] of checked.data.sources.entries()) {
    const problem = urlProblem(source.kind, source.url);
    if (problem) {
      console.error(`--sources-file ${file}: sources.${at} (${source.name}): ${problem}`);
      process.exit(2);
    }
  }
  return checked.data.sources;
}

// The supervising app's one-time secret for its administrator token (routes/admin-bootstrap.ts);
// taken out of the environment so nothing this process starts inherits it.
const adminSecret = process.env.CLARITY_SUPERVISED === '1' && !companyIdentity ? process.env.CLARITY_ADMIN_SECRET || null : null;
delete process.env.CLARITY_ADMIN_SECRET;

// Stopping, registered before the start: a supervisor that stops or dies while we start (its
// SIGTERM, or our stdin closing) ends this process then, rather than after a start nobody will
// use, held open with the data folder's database locked against the app's next start (seen: a
// browser host stopped mid-start left its service running, and the next start found it "in use").
let running: { close(): Promise<void> } | null = null;
let stopping = false;
const shutdown = (): void => {
  if (stopping) return;
  stopping = true;
  if (!running) process.exit(0); // mid-start: nothing served yet; the database recovers as from kill -9
  void running.close().finally(() => process.exit(0));
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
// A supervisor that dies closes our stdin: do not outlive it. (An Electron utility process has
// no stdin — `parentPort` instead — and Electron ends it with the app.)
const isUtilityProcess = 'parentPort' in process;
if (process.env.CLARITY_SUPERVISED === '1' && !isUtilityProcess) process.stdin.on('end', shutdown).resume();

const started = Date.now();
const sources = await readSourcesFile(values['sources-file']);
// The sample is a fixed snapshot that reports no health, standalone and supervised by the app
// alike: the health snapshot lists only sources really fetched (the analyst's own, kept in the
// database). Replaying it as simulated arrivals is for demos and tests (--replay-sample), labelled.
const sample = values['no-sample'] ? 'off' : values['replay-sample'] ? 'replay' : 'snapshot';
const researchMs = integer('research-ms', values['research-ms']);
const askLimit = integer('ask-limit', values['ask-limit']);
const service = await startService({
  databaseUrl: values.database ?? null,
  companyIdentity,
  host,
  ...(publicUrl ? { publicUrl: publicUrl.replace(/\/+$/, '') } : {}),
  ...(trustProxy?.length ? { trustProxy } : {}),
  port: integer('port', values.port),
  paceMs: integer('pace-ms', values['pace-ms']),
  timeZone,
  seed: integer('seed', values.seed),
  // --no-sample: no synthetic signals (the sample's roster stays, unlisted, for lookups).
  signalCount: sample === 'off' ? 0 : integer('signals', values.signals),
  liveFeed: sample === 'replay' && !values['no-live'],
  sample,
  feed: { sources, allowPrivate: values['allow-private-sources'] ?? false, allowedPrivateHosts: allowedSourceHosts(values['allow-source-host'] ?? []), ...(values['contact-url'] ? { contactUrl: values['contact-url'] } : {}) },
  dataDir,
  // Listen first; the corpus, its index and the stored signals are taken in meanwhile.
  warmInBackground: true,
  // The corpus and its index, kept beside the signing key for the next start; the key covers
  // this code's files (src/service, or the build in out/main).
  corpusCache: { dir: dataDir, codeDir: fileURLToPath(new URL('.', import.meta.url)) },
  faults: { enabled: values['enable-faults'] ?? false },
  // The app's embedded service offers "Get a development token" (POST /api/v1/dev/token).
  devTokens: !companyIdentity && ((values['dev-tokens'] ?? false) || process.env.CLARITY_SUPERVISED === '1'),
  adminBootstrapSecret: adminSecret,
  sourceCount: integer('sources', values.sources),
  healthMaxAgeS: integer('health-max-age', values['health-max-age']),
  liveIntervalMs: integer('live-ms', values['live-ms']),
  extensions: { allowPrivateWebhooks: values['allow-private-webhooks'] ?? false },
  composer,
  ...(askLimit !== undefined ? { limits: { ...LIMIT_TABLE, ask: { limit: askLimit, windowMs: LIMIT_TABLE.ask.windowMs } } } : {}),
  ...(researchMs !== undefined ? { research: { durationMs: researchMs, queueMs: Math.min(researchMs, 1_000) } } : {}),
}).catch((error: unknown) => {
  // A configuration the service cannot start with: one plain sentence, no stack.
  if (error instanceof DatabaseStartError || error instanceof ConfigurationError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
});
process.stdout.write(`${JSON.stringify({ event: 'listening', url: service.url, index: service.warmUp.state, sources: service.store.sources.length, feed_sources: sources.length, sample, startup_ms: Date.now() - started })}\n`);
// While warming, a line a second says how many signals the index holds of how many (the app's
// status bar shows it: "Indexing 40,000 of 1,20,000 signals…"); only when the count moved.
let progressShown = -1;
const indexProgress = setInterval(() => {
  const held = service.store.index.size;
  if (service.warmUp.state !== 'warming' || held === progressShown) return;
  progressShown = held;
  process.stdout.write(`${JSON.stringify({ event: 'index_progress', held, total: service.warmUp.expectedSignals })}\n`);
}, 1_000);
indexProgress.unref();
void service.warmUp.whenReady().finally(() => clearInterval(indexProgress)).catch(() => undefined);
service.warmUp.whenReady().then(
  () => process.stdout.write(`${JSON.stringify({ event: 'index_ready', signals: service.store.index.size, stored_signals: service.storedSignals.from, ready_ms: Date.now() - started })}\n`),
  (error: unknown) => {
    if (error instanceof WarmUpStopped) return;
    // A start that cannot hold its signals stops, as it did when this happened before listening.
    console.error(error instanceof DatabaseStartError || error instanceof ConfigurationError ? error.message : error);
    process.exit(1);
  },
);
process.stderr.write(
  `Retail Signal local service on ${service.url}\n  Sample corpus: ${sample === 'replay' ? 'replayed as simulated arrivals (demo)' : sample === 'snapshot' ? 'fixed synthetic snapshot (not fetched)' : 'off'}; fetched sources: ${sources.length}\n  OpenAPI: ${service.url}/.well-known/openapi.yaml\n` +
    (values['enable-faults'] ? '  FAULT INJECTION ENABLED (tests only)\n' : '') +
    `  Answers written by ${composer.model ? `the model ${composer.model.model} at ${shownUrl(composer.model.url)}${composer.model.apiKey ? ' (key from CLARITY_MODEL_API_KEY)' : ''}, checked claim by claim` : 'the extractive composer (no model), checked claim by claim'}; unsupported sentences ${composer.unsupportedClaims === 'mark' ? 'marked' : 'removed'}\n`,
);

running = service;
