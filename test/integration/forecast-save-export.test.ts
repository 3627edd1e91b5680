/**
 * A forecast saved and exported like an answer, through the bridge host against the real local
 * service: forecast.get (paid, so asked once), forecast.save into a real library in a temp dir,
 * export.render in Markdown, HTML, JSON and CSV with every basis signal cited.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportResult, ForecastSource } from '../../src/shared/bridge-contract';
import type { LibraryItem, LibrarySummary } from '../../src/shared/library';
import type { Forecast } from '../../src/shared/surface-schemas';
import type { BridgeHost } from '../../src/main/bridge/bridge-host';
import { createBridgeHost } from '../../src/main/compose-services';
import { CredentialStore } from '../../src/main/services/credentials/credential-store';
import { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { LibraryStore } from '../../src/main/services/library/library-store';
import { SettingsStore } from '../../src/main/services/settings/settings-store';
import type { RunningService } from '../../src/service/server';
import { startTestService } from '../support/local-service';

let service: RunningService;
let host: BridgeHost;
let dir: string;
let source: ForecastSource;

async function value<T>(promise: Promise<{ ok: true; value: unknown } | { ok: false; error: { message: string } }>): Promise<T> {
  const result = await promise;
  if (!result.ok) throw new Error(result.error.message);
  return result.value as T;
}

beforeAll(async () => {
  service = await startTestService();
  dir = await mkdtemp(join(tmpdir(), 'clarity-forecast-save-'));
  const settings = await SettingsStore.open(dir);
  await settings.update({ service: { mode: 'remote', baseUrl: service.url } });
  host = await createBridgeHost({
    settings,
    conversations: await ConversationStore.open(dir),
    library: await LibraryStore.open(dir),
    dataDir: dir,
    credentials: new CredentialStore({ keychain: null, detail: 'test' }, () => settings.get().credentialPresentation),
    localService: null,
  });
  await host.start();
  const token = await service.idp.issueToken('analyst@example.com', 3600, Date.now());
  await value(host.invoke('credentials.set', { secret: token, presentAs: 'bearer' }));
  const forecast = await value<Forecast>(host.invoke('forecast.get', { entity: 'DMart', metric: 'revenue_cr', horizon: 'next_quarter' }));
  source = { kind: 'forecast', entity: 'DMart', metric: 'revenue_cr', horizon: 'next_quarter', forecast };
}, 60_000);

afterAll(async () => {
  await host.dispose();
  await service.close();
  await rm(dir, { recursive: true, force: true });
});

const text = (file: ExportResult): string => Buffer.from(file.base64!, 'base64').toString('utf8');

describe('a forecast in the library and in exports', () => {
  it('saves as an answer stating the forecast, its interval, method and cost, citing every basis signal', async () => {
    const saved = await value<LibrarySummary>(host.invoke('forecast.save', source));
    const f = source.forecast;
    expect(saved).toMatchObject({ kind: 'answer', title: `Forecast: Revenue (₹ crore) of DMart, ${f.forecast.period}`, citationCount: f.basis.length });
    const found = await value<{ items: LibrarySummary[] }>(host.invoke('library.search', { text: 'forecast DMart' }));
    expect(found.items.map((item) => item.id)).toContain(saved.id);

    const item = await value<LibraryItem>(host.invoke('library.get', { id: saved.id }));
    expect(item.markdown).toContain('80% interval');
    expect(item.markdown).toContain(f.method);
    expect(item.markdown).toContain(`$${f.cost_usd.toFixed(4)}`);
    expect(item.meta).toMatchObject({ costUsd: f.cost_usd, confidence: f.confidence });
    // Basis signals are snapshots: title, source and date as Discover had them when saved.
    expect(item.citations.map((c) => c.id).sort()).toEqual([...f.basis].sort());
    const truth = service.store.getSignal(f.history[0]!.signal)!;
    expect(item.citations.find((c) => c.id === truth.id)).toMatchObject({ title: truth.title, source_id: truth.source_id, published_at: truth.published_at });
    // The series comes back out of the saved text as JSON.
    const block = /```json\n([\s\S]+?)\n```/.exec(item.markdown)![1]!;
    expect(JSON.parse(block)).toMatchObject({ entity: 'DMart', metric: 'revenue_cr', forecast: f.forecast, history: f.history, basis: f.basis });
  });

  it('exports as Markdown, HTML, JSON and CSV with the forecast and every basis signal', async () => {
    const f = source.forecast;
    const markdown = text(await value<ExportResult>(host.invoke('export.render', { source, format: 'markdown' })));
    expect(markdown).toMatch(/^# Forecast: Revenue \(₹ crore\) of DMart/);
    expect(markdown).toContain(f.forecast.period);
    for (const id of f.basis) expect(markdown).toContain(id);

    const html = await value<ExportResult>(host.invoke('export.render', { source, format: 'html' }));
    expect(html.filename).toMatch(/^forecast-revenue-crore-of-dmart.*\.html$/);
    expect(text(html)).toContain('<table>');
    expect((text(html).match(/<li id="source-/g) ?? []).length).toBe(f.basis.length);

    const json = JSON.parse(text(await value<ExportResult>(host.invoke('export.render', { source, format: 'json' })))) as { kind: string; citations: unknown[]; meta: { costUsd: number } };
    expect(json).toMatchObject({ kind: 'answer', meta: { costUsd: f.cost_usd } });
    expect(json.citations).toHaveLength(f.basis.length);

    const csv = text(await value<ExportResult>(host.invoke('export.render', { source, format: 'csv' })));
    expect(csv.trim().split('\r\n')).toHaveLength(1 + f.basis.length);
  });
});
