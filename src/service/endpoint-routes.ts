/**
 * Routes come from the endpoint table (src/shared/endpoints/table.ts) and only from it: a
 * handler is registered with `route(app, '<operationId>', handler)`, which takes the method, the
 * path and the limit bucket from the table's row, and the guard refuses at start any route that
 * is not a row of the table.
 */
import type { FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault, RouteGenericInterface, RouteHandlerMethod, RouteShorthandOptions } from 'fastify';
import { routePattern, type EndpointSpec } from '../shared/endpoints/define';
import { isInterfaceBucket } from '../shared/endpoints/limits';
import { ENDPOINTS, type EndpointId } from '../shared/endpoints/table';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The table row this route was registered from (`route()`). */
    endpoint?: EndpointId;
  }
}

type Handler<Generic extends RouteGenericInterface> = RouteHandlerMethod<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, Generic>;

type RouteOptions = Pick<RouteShorthandOptions, 'onSend'>;

/** Registers the handler of one row of the endpoint table (options: hooks of this route only). */
export function route<Generic extends RouteGenericInterface = RouteGenericInterface>(app: FastifyInstance, id: EndpointId, handler: Handler<Generic>): void;
export function route<Generic extends RouteGenericInterface = RouteGenericInterface>(app: FastifyInstance, id: EndpointId, options: RouteOptions, handler: Handler<Generic>): void;
export function route<Generic extends RouteGenericInterface = RouteGenericInterface>(
  app: FastifyInstance,
  id: EndpointId,
  ...args: [Handler<Generic>] | [RouteOptions, Handler<Generic>]
): void {
  const [options, handler] = args.length === 1 ? [{}, args[0]] : args;
  const row: EndpointSpec = ENDPOINTS[id];
  // The interface's buckets are what `x-rate-limit-remaining` reports for the route (server.ts);
  // the extensions' limiters set the header themselves.
  const limit = row.limit && isInterfaceBucket(row.limit) ? { limit: row.limit } : {};
  app.route<Generic>({ method: row.method, url: routePattern(row.path), ...options, config: { endpoint: id, ...limit }, handler });
}

/** Makes registering a route outside the table (or unlike its row) fail when the service starts. */
export function guardEndpointTable(app: FastifyInstance): void {
  app.addHook('onRoute', (options) => {
    const methods = [options.method].flat().filter((method) => method !== 'HEAD');
    if (methods.length === 0) return; // Fastify's HEAD twin of a GET route
    const id = (options.config as { endpoint?: EndpointId } | undefined)?.endpoint;
    const row: EndpointSpec | undefined = id !== undefined && Object.hasOwn(ENDPOINTS, id) ? ENDPOINTS[id] : undefined;
    if (!row || methods.some((method) => method !== row.method) || options.url !== routePattern(row.path)) {
      throw new Error(`${methods.join(', ')} ${options.url} is not a row of the endpoint table (src/shared/endpoints/table.ts); register it there and with route().`);
    }
  });
}

/** The methods registered for a concrete path (with HEAD wherever GET is): a 405's `Allow`. */
export function methodsFor(routes: ReadonlyArray<{ method: string; url: string }>, path: string): string[] {
  const methods = new Set<string>();
  for (const route of routes) {
    const pattern = new RegExp(`^${route.url.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`);
    if (pattern.test(path)) {
      methods.add(route.method);
      if (route.method === 'GET') methods.add('HEAD');
    }
  }
  return [...methods];
}
