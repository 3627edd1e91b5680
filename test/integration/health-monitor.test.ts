/**
 * The sources health monitor against the real local service over HTTP: main ranks the names
 * once per snapshot, in the collated order the table shows (numbers in names by value).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/service/server';
import { RetailSignalClient } from '../../src/main/services/service-client/api-client';
import { HealthMonitor } from '../../src/main/services/health/health-monitor';
import type { HealthView } from '../../src/shared/health';

let service: RunningService;
let dataDir: string;

beforeAll(async () => {
  service = await startService({ liveFeed: false, sourceCount: 1_500 });
  dataDir = await mkdtemp(join(tmpdir(), 'clarity-health-'));
});
afterAll(async () => {
  await service.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('health monitor', () => {
  it('ranks every source by name, numbers by value, for the table to sort on integers', async () => {
    const client = new RetailSignalClient({ baseUrl: service.url });
    let resolveView: (view: HealthView) => void = () => undefined;
    const viewed = new Promise<HealthView>((resolve) => (resolveView = resolve));
    const monitor = await HealthMonitor.open({ dataDir, client: () => client, onUpdate: (view) => view.rows.length > 0 && resolveView(view) });
    monitor.watch();
    const { rows } = await viewed;
    await monitor.stop();

    expect(rows.length).toBe(1_500);
    expect(new Set(rows.map((row) => row.nameRank))).toEqual(new Set(rows.map((_, i) => i)));
    const byRank = [...rows].sort((a, b) => a.nameRank - b.nameRank).map((row) => row.name);
    const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
    for (let i = 1; i < byRank.length; i += 1) expect(collator.compare(byRank[i - 1]!, byRank[i]!)).toBeLessThanOrEqual(0);
    // "… feed 9" comes before "… feed 10", as a reader expects.
    const numbered = byRank.map((name) => /^(.*) (\d+)$/.exec(name)).filter((match) => match !== null);
    const sameStem = numbered.filter((match) => match[1] === numbered[0]![1]).map((match) => Number(match[2]));
    expect(sameStem.length).toBeGreaterThan(1);
    expect(sameStem).toEqual([...sameStem].sort((a, b) => a - b));
  });
});
