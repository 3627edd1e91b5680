/** Server-rendered pages. Every value is escaped: signal text is data, never markup. */
import type { FastifyInstance } from 'fastify';
import { route } from '../endpoint-routes';
import { metricLabel } from '../../shared/metric-labels';
import { formatDay } from '../answers/composer';
import { ServiceError } from '../http-errors';
import type { ServiceContext } from '../service-context';

export function escapeHtml(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** `head`: extra markup for the head (links to alternate versions), already escaped by the caller. */
export function page(title: string, body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Retail Signal</title>
<meta name="viewport" content="width=device-width, initial-scale=1">${head}
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1d2330}
.meta{color:#5b6475}.badge{display:inline-block;padding:0 .5rem;border-radius:1rem;background:#eef1f6}
table{border-collapse:collapse}td,th{border:1px solid #d5dae3;padding:.25rem .5rem}</style></head>
<body>${body}<footer class="meta"><p>Synthetic sample data served by the local Retail Signal service.</p></footer></body></html>`;
}

export function registerPageRoutes(app: FastifyInstance, context: ServiceContext): void {
  route<{ Params: { slug: string } }>(app, 'signalPage', async (request, reply) => {
    const signal = context.store.getSignalBySlug(request.params.slug);
    if (!signal) throw new ServiceError('not_found', 'No signal has that slug.');
    const source = context.store.sourcesById.get(signal.source_id);
    const metrics = Object.entries(signal.metrics)
      .map(([key, value]) => `<tr><th>${escapeHtml(metricLabel(key))}</th><td>${escapeHtml(value)}</td></tr>`)
      .join('');
    const entities = Object.values(signal.entities).flat().map((e) => `<span class="badge">${escapeHtml(e)}</span>`).join(' ');
    reply.type('text/html; charset=utf-8');
    return page(
      signal.title,
      `<h1>${escapeHtml(signal.title)}</h1>
<p class="meta">${escapeHtml(source?.name ?? signal.source_id)} · ${escapeHtml(formatDay(signal.published_at, context.timeZone))} · ${escapeHtml(signal.type.replace(/_/g, ' '))} · source health: ${escapeHtml(source?.health ?? 'unknown')}</p>
<p>${escapeHtml(signal.body)}</p><p>${entities}</p><table>${metrics}</table>
<p class="meta">${escapeHtml(signal.id)}</p>`,
    );
  });
}
