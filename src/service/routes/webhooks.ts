/**
 * Webhooks (docs/decisions/design.md §3): authenticated; management and the deliveries log share a budget of
 * 30 requests / 60 s per user. The secret is in the 201 answer only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { route } from '../endpoint-routes';
import { WebhookRequest } from '../../shared/surface-schemas';
import type { AuthenticatedUser } from '../auth';
import { ServiceError } from '../http-errors';
import { invalidRequest, type ServiceContext } from '../service-context';
import type { SurfaceLimiter } from '../surface-limits';
import { refuseReason } from '../webhooks/address-guard';
import type { DeliveryRecord, WebhookRecord, WebhookStore } from '../webhooks/webhook-store';

export const webhookJson = (hook: WebhookRecord) => ({ id: hook.id, url: hook.url, events: hook.events, created_at: hook.createdAt });

export const deliveryJson = (delivery: DeliveryRecord) => ({
  id: delivery.id,
  event: delivery.event,
  created_at: delivery.createdAt,
  state: delivery.state,
  attempts: delivery.attempts,
  next_attempt_at: delivery.nextAttemptAt,
  ...(delivery.redeliveryOf ? { redelivery_of: delivery.redeliveryOf } : {}),
});

export function registerWebhookRoutes(app: FastifyInstance, context: ServiceContext, limiter: SurfaceLimiter, webhooks: WebhookStore): void {
  const caller = (request: FastifyRequest, reply: FastifyReply): AuthenticatedUser => {
    const user = context.requireUser(request, 'Webhooks');
    limiter.enforce('webhooks', `user:${user.id}`, reply);
    return user;
  };

  route(app, 'createWebhook', async (request, reply) => {
    const user = caller(request, reply);
    const parsed = WebhookRequest.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error);
    const refused = await refuseReason(new URL(parsed.data.url), webhooks.allowPrivate);
    if (refused) throw new ServiceError('invalid_request', `Invalid field \`url\`: ${refused}.`);
    const hook = await webhooks.create(user.id, parsed.data.url, parsed.data.events);
    return reply.status(201).send({ ...webhookJson(hook), secret: hook.secret, note: 'The secret is shown once. Verify X-Clarity-Signature with it.' });
  });

  route(app, 'listWebhooks', async (request, reply) => {
    const user = caller(request, reply);
    return { webhooks: (await webhooks.list(user.id)).map(webhookJson) };
  });

  route<{ Params: { id: string } }>(app, 'deleteWebhook', async (request, reply) => {
    const user = caller(request, reply);
    if (!(await webhooks.remove(user.id, request.params.id))) throw new ServiceError('not_found', `No webhook ${request.params.id}.`);
    return { id: request.params.id, deleted: true };
  });

  /** A new secret, shown once like the first; the old one stops signing at once. */
  route<{ Params: { id: string } }>(app, 'rotateWebhookSecret', async (request, reply) => {
    const user = caller(request, reply);
    const hook = await webhooks.rotateSecret(user.id, request.params.id);
    if (!hook) throw new ServiceError('not_found', `No webhook ${request.params.id}.`);
    return { ...webhookJson(hook), secret: hook.secret, note: 'The new secret is shown once; the old one no longer signs deliveries.' };
  });

  route<{ Params: { id: string; deliveryId: string } }>(app, 'redeliverWebhookDelivery', async (request, reply) => {
    const user = caller(request, reply);
    if (!(await webhooks.get(user.id, request.params.id))) throw new ServiceError('not_found', `No webhook ${request.params.id}.`);
    const delivery = await webhooks.redeliver(user.id, request.params.id, request.params.deliveryId);
    if (!delivery) throw new ServiceError('not_found', `No delivery ${request.params.deliveryId} of webhook ${request.params.id}.`);
    return reply.status(202).send(deliveryJson(delivery));
  });

  route<{ Params: { id: string } }>(app, 'webhookDeliveries', async (request, reply) => {
    const user = caller(request, reply);
    const hook = await webhooks.get(user.id, request.params.id);
    if (!hook) throw new ServiceError('not_found', `No webhook ${request.params.id}.`);
    return { deliveries: (await webhooks.deliveriesOf(hook.id)).map(deliveryJson) };
  });
}
