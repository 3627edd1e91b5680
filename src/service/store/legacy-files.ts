/**
 * Earlier versions kept API keys, research runs, follows and webhooks in JSON files in the data
 * directory. The first start on a database moves them in, in one transaction, and renames each
 * file to `<name>.imported`. A file that cannot be parsed stops the start with its name: it is
 * never silently dropped.
 */
import { readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseStartError, type Database, type Queryable } from './database';

interface LegacyFile {
  name: string;
  insert(tx: Queryable, record: Record<string, unknown>): Promise<unknown>;
}

const json = (value: unknown): string => JSON.stringify(value ?? null);

const FILES: LegacyFile[] = [
  {
    name: 'api-keys.json',
    insert: (tx, r) =>
      tx.query('INSERT INTO api_keys (id, owner, email, sha256, last4, created_at, revoked_at, tier) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING', [
        r.id,
        r.owner,
        r.email,
        r.sha256,
        r.last4,
        r.createdAt,
        r.revokedAt ?? null,
        r.tier ?? null,
      ]),
  },
  {
    name: 'research-runs.json',
    insert: (tx, r) =>
      tx.query(
        `INSERT INTO research_runs (id, owner, topic, preset, status, created_at, completed_at, markdown, citations, cost_usd, error, run_after_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING`,
        [r.id, r.owner, r.topic, r.preset, r.status === 'running' ? 'queued' : r.status, r.createdAt, r.completedAt ?? null, r.markdown ?? null, json(r.citations ?? []), r.costUsd ?? 0, r.error ?? null, Date.now()],
      ),
  },
  {
    name: 'follows.json',
    insert: (tx, r) => tx.query('INSERT INTO follows (id, owner, target, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [r.id, r.owner, json(r.target), r.createdAt]),
  },
  {
    name: 'webhooks.json',
    insert: (tx, r) =>
      tx.query('INSERT INTO webhooks (id, owner, url, events, secret, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING', [r.id, r.owner, r.url, json(r.events), r.secret, r.createdAt]),
  },
];

export async function importLegacyFiles(db: Database, dataDir: string): Promise<string[]> {
  const found: Array<{ file: LegacyFile; path: string; records: Array<Record<string, unknown>> }> = [];
  for (const file of FILES) {
    const path = join(dataDir, file.name);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      continue;
    }
    let records: unknown;
    try {
      records = JSON.parse(text);
    } catch {
      records = null;
    }
    if (!Array.isArray(records)) {
      throw new DatabaseStartError(`${path} (from an earlier version) cannot be read, so its records cannot be moved into the database: repair it, or move it aside to start without them.`);
    }
    found.push({ file, path, records: records as Array<Record<string, unknown>> });
  }
  if (found.length === 0) return [];
  await db.transaction(async (tx) => {
    for (const { file, records } of found) for (const record of records) await file.insert(tx, record);
  });
  for (const { path } of found) await rename(path, `${path}.imported`);
  return found.map(({ path }) => path);
}
