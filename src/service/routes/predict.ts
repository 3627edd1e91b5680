/**
 * `POST /api/v1/predict` (docs/decisions/design.md §3): authenticated and paid (the answer carries its
 * `cost_usd`), 5 requests / 5 min per user; too little history is 422. The method is in
 * forecast/forecaster.ts and is stated in every answer's `method`. `GET /api/v1/predict/metrics`
 * says which of an entity's metrics a forecast is offered for (forecast/forecastable.ts).
 */
import type { FastifyInstance } from 'fastify';
import { route } from '../endpoint-routes';
import { PredictRequest } from '../../shared/surface-schemas';
import { z } from 'zod';
import type { ForecastableList } from '../../shared/surface-schemas';
import { predict } from '../forecast/forecaster';
import { forecastableMetrics, OFFER_RULE_TEXT } from '../forecast/forecastable';
import { worldEntities } from '../world/entity-registry';
import { invalidRequest, type ServiceContext } from '../service-context';
import type { SurfaceLimiter } from '../surface-limits';

const ForecastableQuery = z.object({ entity: z.string().trim().min(1).max(120) });

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

  // Issue 47 item 6: which metrics of an entity a forecast is offered for, judged by their history.
  route(app, 'forecastable', async (request, reply): Promise<ForecastableList> => {
    limiter.enforce('discover', context.identify(request).key, reply);
    const parsed = ForecastableQuery.safeParse(request.query);
    if (!parsed.success) throw invalidRequest(parsed.error);
    // On a team server, what another process fetched or learned a moment ago counts too.
    await context.feed.sync();
    const learned = worldEntities.find(parsed.data.entity);
    const entity = learned?.origin === 'learned' ? learned.name : parsed.data.entity;
    return { entity, rule: OFFER_RULE_TEXT, metrics: forecastableMetrics(context.store.allSignals(), entity, context.now()) };
  });
}
