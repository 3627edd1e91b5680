/**
 * What the service keeps: sessions and their public pages, API keys, research runs and follows
 * survive a restart and a kill -9, on the embedded database (the default) and on a real
 * PostgreSQL (a throw-away cluster). Each service here is its own process, killed as an
 * operator would.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedPostgresCluster, type PostgresCluster } from '../support/postgres-cluster';
import { seedServiceFolder } from '../support/prepared-service-folder';
import { devToken, failedStart, FAST_ARGS, startServiceProcess, type ServiceProcess } from '../support/service-process';
import { pollUntil, waitFor } from '../support/wait-for';

let cluster: PostgresCluster;
const dirs: string[] = [];
const running = new Set<ServiceProcess>();

beforeAll(async () => {
  cluster = await sharedPostgresCluster();
}, 120_000);

afterAll(async () => {
  await Promise.all([...running].map((service) => service.kill9()));
  await cluster?.destroy();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'clarity-storage-'));
  dirs.push(dir);
  return dir;
}

/** A data folder as a first start leaves it (the suite's copy): these tests are about what a restart finds. */
const usedDir = async (): Promise<string> => seedServiceFolder(await tempDir());

async function start(args: string[]): Promise<ServiceProcess> {
  const service = await startServiceProcess([...FAST_ARGS, ...args]);
  running.add(service);
  return service;
}

async function kill9(service: ServiceProcess): Promise<void> {
  await service.kill9();
  running.delete(service);
}

const json = (body: unknown, headers: Record<string, string> = {}) => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

interface Written {
  key: string;
  slug: string;
  page: string;
  runId: string;
  run: { status: string; markdown: string | null };
  followId: string;
}

/** What an analyst leaves behind: a key, a shared answer, a research report, a follow. */
async function writeState(url: string): Promise<Written> {
  const token = await devToken(url, 'keeper@example.com');
  const bearer = { authorization: `Bearer ${token}` };
  const issued = await fetch(`${url}/api/v1/keys`, json({}, bearer));
  expect(issued.status).toBe(201);
  const { key } = (await issued.json()) as { key: string };
  const asked = (await (await fetch(`${url}/api/v1/ask`, json({ messages: [{ role: 'user', content: 'How fast is quick commerce growing in Bengaluru?' }] }, { 'x-api-key': key }))).json()) as {
    session_id: string;
    session_slug: string;
  };
  const shared = await fetch(`${url}/api/v1/sessions/${asked.session_id}/visibility`, json({ public: true }, { 'x-api-key': key }));
  expect(shared.status).toBe(200);
  const page = await (await fetch(`${url}/ask/${asked.session_slug}/1`)).text();
  expect(page).toContain('How fast is quick commerce growing in Bengaluru?');
  const queued = (await (await fetch(`${url}/api/v2/research`, json({ topic: 'quick commerce in Bengaluru' }, bearer))).json()) as { id: string };
  const status = await pollUntil(
    async () => ((await (await fetch(`${url}/api/v1/research/${queued.id}`, { headers: bearer })).json()) as { status: string }).status,
    (now) => now !== 'queued' && now !== 'running',
    { timeout: 20_000, interval: 100 },
  );
  expect(['completed', 'failed']).toContain(status);
  const report = status === 'completed' ? ((await (await fetch(`${url}/api/v1/research/${queued.id}/report`, { headers: bearer })).json()) as { markdown: string }).markdown : null;
  const follow = await fetch(`${url}/api/v1/follow`, json({ target: { type: 'query', value: 'quick commerce' } }, bearer));
  expect(follow.status).toBe(201);
  return { key, slug: asked.session_slug, page, runId: queued.id, run: { status, markdown: report }, followId: ((await follow.json()) as { id: string }).id };
}

async function expectKept(url: string, written: Written): Promise<void> {
  const page = await fetch(`${url}/ask/${written.slug}/1`);
  expect(page.status).toBe(200);
  // The stored question and answer, exactly (the sources list beside them is rendered from the
  // regenerated sample corpus, whose dates move with the day a service starts).
  expect(storedTurn(await page.text())).toBe(storedTurn(written.page));
  const keys = await fetch(`${url}/api/v1/keys`, { headers: { 'x-api-key': written.key } });
  expect(keys.status).toBe(200);
  const run = (await (await fetch(`${url}/api/v1/research/${written.runId}`, { headers: { 'x-api-key': written.key } })).json()) as { status: string };
  expect(run.status).toBe(written.run.status);
  if (written.run.markdown) {
    const report = (await (await fetch(`${url}/api/v1/research/${written.runId}/report`, { headers: { 'x-api-key': written.key } })).json()) as { markdown: string };
    expect(report.markdown).toBe(written.run.markdown);
  }
  const follows = (await (await fetch(`${url}/api/v1/follow`, { headers: { 'x-api-key': written.key } })).json()) as { follows: Array<{ id: string }> };
  expect(follows.follows.map((follow) => follow.id)).toContain(written.followId);
}

const storedTurn = (page: string): string => /<h1>[\s\S]*<\/pre>/.exec(page)?.[0] ?? 'no turn on the page';

/** Issues keys and asks without pause, then kill -9s the service; returns what was acknowledged. */
async function writeUntilKilled(service: ServiceProcess): Promise<{ keys: string[]; sessions: string[] }> {
  const token = await devToken(service.url, 'crash@example.com');
  const acknowledged = { keys: [] as string[], sessions: [] as string[] };
  let stop = false;
  const writer = async (kind: 'key' | 'ask'): Promise<void> => {
    while (!stop) {
      try {
        if (kind === 'key') {
          const response = await fetch(`${service.url}/api/v1/keys`, json({}, { authorization: `Bearer ${token}` }));
          if (response.status === 201) acknowledged.keys.push(((await response.json()) as { key: string }).key);
        } else {
          const response = await fetch(`${service.url}/api/v1/ask`, json({ messages: [{ role: 'user', content: 'DMart stores in Pune' }] }, { authorization: `Bearer ${token}` }));
          if (response.status === 200) acknowledged.sessions.push(((await response.json()) as { session_id: string }).session_id);
        }
      } catch {
        return; // The process is gone: this request was never acknowledged.
      }
    }
  };
  const writers = [...Array.from({ length: 6 }, () => writer('key')), writer('ask')];
  await waitFor(() => acknowledged.keys.length >= 25, { timeout: 60_000, what: '25 acknowledged keys' });
  await kill9(service);
  stop = true;
  await Promise.all(writers);
  return acknowledged;
}

async function expectAcknowledgedKept(url: string, acknowledged: { keys: string[]; sessions: string[] }): Promise<void> {
  const token = await devToken(url, 'crash@example.com');
  for (const key of acknowledged.keys) expect((await fetch(`${url}/api/v1/keys`, { headers: { 'x-api-key': key } })).status, `key …${key.slice(-4)}`).toBe(200);
  for (const session of acknowledged.sessions) {
    const response = await fetch(`${url}/api/v1/sessions/${session}/visibility`, json({ public: false }, { authorization: `Bearer ${token}` }));
    expect(response.status, session).toBe(200);
    expect(((await response.json()) as { turns: number }).turns).toBeGreaterThanOrEqual(1);
  }
}

describe('embedded database (the default)', () => {
  it('keeps sessions, the public page, keys, research and follows across a restart and a kill -9', async () => {
    const dir = await usedDir();
    const first = await start(['--data-dir', dir]);
    const written = await writeState(first.url);
    await kill9(first);
    const second = await start(['--data-dir', dir]);
    await expectKept(second.url, written);
    await second.stop();
    running.delete(second);
  }, 300_000);

  it('loses no acknowledged key or answer when killed mid-write', async () => {
    const dir = await usedDir();
    const acknowledged = await writeUntilKilled(await start(['--data-dir', dir]));
    expect(acknowledged.keys.length).toBeGreaterThanOrEqual(25);
    const restarted = await start(['--data-dir', dir]);
    await expectAcknowledgedKept(restarted.url, acknowledged);
    await kill9(restarted);
  }, 300_000);

  it('refuses a corrupt database with the file and the backup named, and starts nothing empty', async () => {
    const dir = await usedDir();
    const service = await start(['--data-dir', dir]);
    await service.stop();
    running.delete(service);
    await writeFile(join(dir, 'database', 'global', 'pg_control'), 'not a control file');
    const refused = await failedStart([...FAST_ARGS, '--data-dir', dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(join(dir, 'database'));
    expect(refused.stderr).toMatch(/cannot be read/);
    expect(refused.stderr).not.toMatch(/\n\s+at /); // one sentence, no stack trace
  }, 300_000);
});

describe('PostgreSQL (--database)', () => {
  it('keeps sessions, the public page, keys, research and follows across a restart and a kill -9', async () => {
    const url = await cluster.createDatabase('keeps');
    const first = await start(['--database', url]);
    const written = await writeState(first.url);
    await kill9(first);
    const second = await start(['--database', url]);
    await expectKept(second.url, written);
    await second.stop();
    running.delete(second);
  }, 300_000);

  it('loses no acknowledged key or answer when killed mid-write', async () => {
    const url = await cluster.createDatabase('crash');
    const acknowledged = await writeUntilKilled(await start(['--database', url]));
    const restarted = await start(['--database', url]);
    await expectAcknowledgedKept(restarted.url, acknowledged);
    await kill9(restarted);
  }, 300_000);

  it('fails at start with one plain sentence for a wrong password or an unreachable server', async () => {
    const wrong = await failedStart([...FAST_ARGS, '--database', cluster.url('postgres', 'not-the-password')]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim()).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+ refused user clarity: wrong password/);
    expect(wrong.stderr).not.toContain('not-the-password');
    const unreachable = await failedStart([...FAST_ARGS, '--database', 'postgres://clarity:x@127.0.0.1:1/none']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr.trim()).toMatch(/^Cannot reach PostgreSQL at 127\.0\.0\.1:1/);
  }, 120_000);
});
