/**
 * How the app becomes the administrator of the embedded service it supervises: the supervisor
 * starts the service with a random one-time secret in its environment (CLARITY_ADMIN_SECRET) and
 * trades it here, once, for an admin JWT (claim role "admin", tier "team") that it keeps in memory
 * and presents as the analyst for every call that needs a caller (issue 47: the owner credential).
 *
 * SECURITY: POST /api/v1/dev/token never issues the admin role, so another local process cannot
 * become administrator through the loopback dev-token route. This route is registered only when
 * the service was given a secret; the secret works once (a process that later reads the child's
 * environment gets nothing), is compared in constant time, and a request from a web page (any
 * Origin header) is refused.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { route } from '../endpoint-routes';
import type { FastifyInstance } from 'fastify';
import { ISSUER, userIdFor } from '../auth';
import { ServiceError } from '../http-errors';
import type { ServiceContext } from '../service-context';

export const ADMIN_SECRET_HEADER = 'x-clarity-admin-secret';
/** Who the admin token names: the analyst at this machine, as the service's administrator. */
export const LOCAL_ADMINISTRATOR = 'administrator@clarity.local';
/** The token lasts longer than any app session; the next start of the service brings a new one. */
const ADMIN_TOKEN_TTL_S = 30 * 86_400;

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

export function registerAdminBootstrapRoute(app: FastifyInstance, context: ServiceContext, secret: string): void {
  const expected = digest(secret);
  let used = false;
  route(app, 'issueAdministratorToken', async (request, reply) => {
    if (request.headers.origin !== undefined) throw new ServiceError('forbidden', 'Administrator tokens are not issued to web pages.');
    const presented = request.headers[ADMIN_SECRET_HEADER];
    const matches = typeof presented === 'string' && timingSafeEqual(digest(presented), expected);
    if (used || !matches) throw new ServiceError('forbidden', 'Only the app that started this service, once, with the secret it was started with, gets the administrator token.');
    used = true;
    const issuedAt = context.now();
    // The owner of the embedded service (issue 47): the same token is the analyst's caller for
    // research, follows, webhooks and keys, on the team tier (their own machine sets no quota of follows).
    const token = await context.idp.issueToken(LOCAL_ADMINISTRATOR, ADMIN_TOKEN_TTL_S, issuedAt, { role: 'admin', tier: 'team' });
    return reply.status(201).send({
      token,
      token_type: 'Bearer',
      expires_at: new Date((Math.floor(issuedAt / 1000) + ADMIN_TOKEN_TTL_S) * 1000).toISOString(),
      subject: userIdFor(LOCAL_ADMINISTRATOR),
      issuer: ISSUER,
    });
  });
}
