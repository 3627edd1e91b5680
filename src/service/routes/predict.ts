/**
 * `POST /api/v1/predict` (docs/decisions/design.md §3): authenticated and paid (the answer carries its
 * `cost_usd`), 5 requests / 5 min per user; too little history is 422. The method is in
 * forecast/forecaster.ts and is stated in every answer's `method`.
 */
import type { FastifyInstance } from 'fastify';
import { route } from '../endpoint-routes';
import { PredictRequest } from '../../shared/surface-schemas';
import { predict } from '../forecast/forecaster';
import { worldEntities } from '../world/entity-registry';
import { invalidRequest, type ServiceContext } from '../service-context';
import type { SurfaceLimiter } from '../surface-limits';

export function registerPredictRoutes(app: FastifyInstance, context: ServiceContext, limiter: SurfaceLimiter): void {
  route(app, 'predict', async (request, reply) => {
    const user = context.requireUser(request, 'Predict');
    limiter.enforce('predict', `user:${user.id}`, reply);
    const parsed = PredictRequest.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error);
    // A learned entity is accepted by name or alias (its signals name it by name).
    const learned = worldEntities.find(parsed.data.entity);
    return predict(context.store, learned?.origin === 'learned' ? { ...parsed.data, entity: learned.name } : parsed.data, context.now());
  });
}
