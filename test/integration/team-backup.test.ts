/**
 * Backups that restore (issue 48, docs/team-server.md "Backups"): a team server's database dumped
 * with Debian's pg_dump (custom format, as the nightly cron line does) and restored with
 * pg_restore into a new database; a service process on the restored database answers the same
 * questions with the same answers and pages: the follow feed read page by page (items, cursors,
 * has_more), Discover, a shared answer page, an API key, a session continued, the same ask.
 * Real PostgreSQL (test/support/postgres-cluster.ts) and the service as its own process.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_PASSWORD, CLUSTER_USER, postgresBinDir, sharedPostgresCluster, type PostgresCluster } from '../support/postgres-cluster';
import { seedServiceFolder } from '../support/prepared-service-folder';
import { devToken, FAST_ARGS, startServiceProcess, type ServiceProcess } from '../support/service-process';

const run = promisify(execFile);
let cluster: PostgresCluster;
let scratch: string;
const running = new Set<ServiceProcess>();

beforeAll(async () => {
  cluster = await sharedPostgresCluster();
  scratch = await mkdtemp(join(tmpdir(), 'clarity-backup-'));
}, 120_000);

afterAll(async () => {
  await Promise.all([...running].map((service) => service.kill9()));
  await cluster?.destroy();
  await rm(scratch, { recursive: true, force: true });
});

/** pg_dump / pg_restore of the cluster's own version, signing in as the docs' `clarity` user would (PGPASSWORD). */
const tool = (name: 'pg_dump' | 'pg_restore', args: string[]) =>
  run(join(postgresBinDir()!, name), ['--host', '127.0.0.1', '--port', String(cluster.port), '--username', CLUSTER_USER, ...args], { env: { ...process.env, PGPASSWORD: CLUSTER_PASSWORD } });

async function start(database: string, dir: string): Promise<ServiceProcess> {
  // The sample's corpus cache a first start leaves (the suite's copy): these tests are about the database.
  const dataDir = await seedServiceFolder(join(scratch, dir), { database: false });
  const service = await startServiceProcess([...FAST_ARGS, '--data-dir', dataDir, '--database', cluster.url(database)]);
  running.add(service);
  return service;
}

interface Answers {
  follows: unknown;
  pages: unknown[];
  discover: unknown;
  sharedPage: string;
  keys: unknown;
}

/** The questions asked of each database: every answer as the client sees it. */
async function ask(base: string, token: string, key: string, slug: string): Promise<Answers> {
  const get = async (path: string, credential = token): Promise<unknown> => {
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${credential}` } });
    expect(response.status, path).toBe(200);
    return response.json();
  };
  const pages: unknown[] = [];
  let cursor = '';
  for (;;) {
    const page = (await get(`/api/v1/follow/feed${cursor ? `?cursor=${cursor}` : ''}`)) as { next_cursor: string; has_more: boolean };
    pages.push(page);
    cursor = page.next_cursor;
    if (!page.has_more) break;
  }
  const shared = await fetch(`${base}/ask/${slug}/1`);
  expect(shared.status).toBe(200);
  return {
    follows: await get('/api/v1/follow'),
    pages,
    discover: await get('/api/v1/discover?segment=grocery&limit=30'),
    // The page's per-response nonce aside, the same page.
    sharedPage: (await shared.text()).replace(/nonce-[A-Za-z0-9+/=_-]+|nonce="[^"]*"/g, 'nonce'),
    // Listed with the API key itself: the key works on the restored database.
    keys: await get('/api/v1/keys', key),
  };
}

const post = async (url: string, body: unknown, token: string): Promise<Record<string, unknown>> => {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  expect(response.status, url).toBeLessThan(300);
  return (await response.json()) as Record<string, unknown>;
};

describe('a pg_dump of a team database', () => {
  it('restores into a new database where the same questions give the same answers and pages', async () => {
    await cluster.createDatabase('backup_source');
    const before = await start('backup_source', 'before');
    const token = await devToken(before.url, 'analyst@example.com');
    for (const target of [{ type: 'segment', value: 'grocery' }, { type: 'city', value: 'Mumbai' }, { type: 'entity', value: 'DMart' }]) await post(`${before.url}/api/v1/follow`, { target }, token);
    const question = { messages: [{ role: 'user', content: 'How fast is DMart growing in Pune?' }] };
    const asked = await post(`${before.url}/api/v1/ask`, question, token);
    await post(`${before.url}/api/v1/sessions/${String(asked.session_id)}/visibility`, { public: true }, token);
    const key = String((await post(`${before.url}/api/v1/keys`, {}, token)).key);
    const answersBefore = await ask(before.url, token, key, String(asked.session_slug));
    expect((answersBefore.pages[0] as { items: unknown[] }).items.length).toBeGreaterThan(0);

    // The nightly line's dump, and a restore into a new database.
    const dump = join(scratch, 'clarity.dump');
    await tool('pg_dump', ['--format=custom', '--file', dump, 'backup_source']);
    await cluster.createDatabase('backup_restored');
    await tool('pg_restore', ['--dbname', 'backup_restored', dump]);

    await before.stop();
    running.delete(before);
    const after = await start('backup_restored', 'after');
    expect(await ask(after.url, token, key, String(asked.session_slug))).toEqual(answersBefore);
    // The same question, the same answer; the session goes on where it was.
    const again = await post(`${after.url}/api/v1/ask`, question, token);
    expect([again.content, again.citations]).toEqual([asked.content, asked.citations]);
    const followUp = await post(`${after.url}/api/v1/ask`, { messages: [{ role: 'user', content: 'And in Mumbai?' }], session_id: asked.session_id }, token);
    expect(followUp.session_id).toBe(asked.session_id);
  }, 300_000);
});
