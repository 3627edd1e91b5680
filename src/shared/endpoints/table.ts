/**
 * The endpoint table: every HTTP endpoint of the Retail Signal service, declared once. Each row
 * (keyed by its `operationId`) gives the method, path, who may call, the limit bucket, the
 * request and response schemas, the error statuses, the summary and the documentation prose.
 *
 * Read by: the service, which registers exactly these routes and no other (`src/service/
 * endpoint-routes.ts`); the OpenAPI document (`../openapi/document.ts`); the app's client, whose
 * calls are typed from the rows (`src/main/services/service-client/api-client.ts`). `test/integration/
 * endpoint-table.test.ts` checks the table is the only list. Adding an endpoint: CONTRIBUTING.md.
 */
import { askArea } from './ask';
import type { EndpointSpec } from './define';
import { developerArea } from './developer';
import { feedSourcesArea } from './feed-sources';
import { pagesArea } from './pages';
import { researchArea } from './research';
import { sourcesArea } from './sources';
import { surfacesArea } from './surfaces';

/** Every area, in the order their rows appear in the document. */
export const AREAS = [askArea, researchArea, sourcesArea, feedSourcesArea, pagesArea, developerArea, surfacesArea] as const;

export const ENDPOINTS = {
  ...askArea.endpoints,
  ...researchArea.endpoints,
  ...sourcesArea.endpoints,
  ...feedSourcesArea.endpoints,
  ...pagesArea.endpoints,
  ...developerArea.endpoints,
  ...surfacesArea.endpoints,
};

export type Endpoints = typeof ENDPOINTS;
export type EndpointId = keyof Endpoints;

/** The rows with their ids, in table order. */
export function endpointRows(): Array<EndpointSpec & { id: EndpointId }> {
  return (Object.entries(ENDPOINTS) as Array<[EndpointId, EndpointSpec]>).map(([id, spec]) => ({ id, ...spec }));
}

/** Problems that make the table ambiguous: an id in two areas, or a method and path declared twice. */
export function tableProblems(): string[] {
  const problems: string[] = [];
  const ids = AREAS.flatMap((area) => Object.keys(area.endpoints));
  for (const id of new Set(ids)) if (ids.filter((other) => other === id).length > 1) problems.push(`${id} is declared in two areas`);
  const routes = endpointRows().map((row) => `${row.method} ${row.path}`);
  for (const route of new Set(routes)) if (routes.filter((other) => other === route).length > 1) problems.push(`${route} is declared twice`);
  return problems;
}
