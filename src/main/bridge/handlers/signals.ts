/**
 * One signal with its source, looked up on the service (the citation panel). A service without
 * the `GET /api/v1/signals/{id}` extension is asked through Discover (`?id=`), with the source's
 * health taken from the last health snapshot (docs/decisions/design.md §3: the client works without extensions).
 */
import { fail, ok, type Result, type SignalDetails } from '../../../shared/bridge-contract';
import type { RetailSignalClient } from '../../services/service-client/api-client';
import type { HealthMonitor } from '../../services/health/health-monitor';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

async function throughDiscover(client: RetailSignalClient, health: HealthMonitor, id: string): Promise<Result<SignalDetails> | null> {
  const page = await client.call('discover', { query: new URLSearchParams({ id }) }, 'a Discover page');
  const item = page.ok ? page.value.items.find((candidate) => candidate.id === id) : undefined;
  if (!item) return null;
  if (!health.current().snapshot) await health.refresh().catch(() => undefined);
  const row = health.current().rows.find((entry) => entry.id === item.source.id);
  if (!row || row.health === 'unknown') return fail({ code: 'not_found', message: `Found ${id} through Discover, but its source ${item.source.name} is not in the health snapshot.` });
  return ok({
    signal: { ...item, body: item.summary, source_id: item.source.id, type: item.type ?? 'signal' },
    source: { id: row.id, name: row.name, kind: row.kind, health: row.health as SignalDetails['source']['health'], cadence: row.cadence, items_24h: row.items_24h, last_item_at: row.last_item_at, url: row.url },
    fetchedAt: new Date().toISOString(),
  });
}

export function signalHandlers({ connection, health }: HandlerContext): HandlerMap<MethodsIn<'signals'>> {
  return {
    'signals.get': async ({ id }) => {
      const client = connection.requireClient();
      if (!client.ok) return client;
      const result = await client.value.getSignal(id);
      if (result.ok) return ok({ ...result.value, fetchedAt: new Date().toISOString() });
      if (result.error.status !== 404) return result;
      return (await throughDiscover(client.value, health, id)) ?? result;
    },
  };
}
