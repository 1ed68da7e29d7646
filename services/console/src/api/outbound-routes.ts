import Router from '@koa/router';
import { z } from 'zod';
import { getDeliveryView, listDeliveries, listEndpoints, toEndpointView } from '@berth/outbound';
import { ConsoleError } from '../errors';
import type { ConsoleDependencies } from '../dependencies';
import { queryOf } from './query';

const optional = z
  .string()
  .max(256)
  .optional()
  .transform((value) => value || undefined);

/** The delivery filter both the console and the portal take. */
export const deliveriesQuery = z.object({
  endpointId: optional,
  eventId: optional,
  eventType: optional,
  status: z
    .enum(['pending', 'delivered', 'failed', 'skipped'])
    .optional()
    .or(z.literal('').transform(() => undefined)),
  since: z.iso
    .datetime({ offset: true })
    .optional()
    .or(z.literal('').transform(() => undefined)),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

/**
 * `GET /api/outbound/endpoints?workspaceId=` (with state and failure run), `GET /api/outbound/endpoints/:id`, `GET /api/outbound/deliveries?…`
 * (every attempt and response), `GET /api/outbound/deliveries/:id`.
 */
export function outboundRoutes(dependencies: ConsoleDependencies): Router {
  const router = new Router({ prefix: '/api/outbound' });
  router.get('/endpoints', async (ctx) => {
    const { workspaceId } = queryOf(ctx, z.object({ workspaceId: optional }));
    const now = dependencies.clock();
    const endpoints = await listEndpoints({ collections: dependencies.outbound }, { workspaceId });
    ctx.body = { endpoints: endpoints.map((endpoint) => toEndpointView(endpoint, now)) };
  });
  router.get('/endpoints/:id', async (ctx) => {
    const endpoint = await dependencies.outbound.endpoints.findOne({ _id: ctx.params.id });
    if (!endpoint) throw new ConsoleError(404, 'not_found', `No endpoint ${ctx.params.id}`);
    ctx.body = toEndpointView(endpoint, dependencies.clock());
  });
  router.get('/deliveries', async (ctx) => {
    const query = queryOf(ctx, deliveriesQuery.extend({ workspaceId: optional }));
    ctx.body = {
      deliveries: await listDeliveries(
        { collections: dependencies.outbound },
        { ...query, since: query.since ? new Date(query.since) : undefined, limit: query.limit ?? 100 },
      ),
    };
  });
  router.get('/deliveries/:id', async (ctx) => {
    const view = await getDeliveryView(dependencies.outbound, ctx.params.id);
    if (!view) throw new ConsoleError(404, 'not_found', `No delivery ${ctx.params.id}`);
    ctx.body = view;
  });
  return router;
}
