import type Router from '@koa/router';
import { createRouter } from '@berth/http-guard/koa';
import { getDeliveryView, listDeliveries, replayDelivery, type ReplayDependencies } from '@berth/outbound';
import { ApiError } from './read-json-body';
import { listDeliveriesQuery } from './request-schemas';
import { parseWith } from './parse-with';

/** The delivery log routes: `GET /v1/deliveries?endpointId=&status=&since=&limit=`, `GET /v1/deliveries/:id`, `POST /v1/deliveries/:id/replay`. */
export function deliveryRoutes(replay: ReplayDependencies): Router {
  const router = createRouter();
  router.get('/v1/deliveries', async (ctx) => {
    const query = parseWith(listDeliveriesQuery, ctx.query);
    ctx.body = {
      data: await listDeliveries(replay, { ...query, since: query.since ? new Date(query.since) : undefined }),
    };
  });
  router.get('/v1/deliveries/:id', async (ctx) => {
    const view = await getDeliveryView(replay.collections, ctx.params.id);
    if (!view) throw new ApiError(404, 'not_found', `No delivery ${ctx.params.id}`);
    ctx.body = view;
  });
  router.post('/v1/deliveries/:id/replay', async (ctx) => {
    ctx.status = 202;
    ctx.body = await replayDelivery(replay, ctx.params.id);
  });
  return router;
}
