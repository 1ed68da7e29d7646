import type Router from '@koa/router';
import { createRouter } from '@berth/http-guard/koa';
import type { EventCatalog } from '@berth/outbound';
import { ApiError } from './read-json-body';

/**
 * The event-type catalog: `GET /v1/event-types` (every type a workspace's endpoints can subscribe to, with its JSON
 * Schema and an example) and `GET /v1/event-types/:type`. The endpoint portal shows these to customers.
 */
export function eventTypeRoutes(catalog: EventCatalog): Router {
  const router = createRouter();
  router.get('/v1/event-types', (ctx) => {
    ctx.body = { data: catalog.list() };
  });
  router.get('/v1/event-types/:type', (ctx) => {
    const entry = catalog.get(ctx.params.type);
    if (!entry) throw new ApiError(404, 'not_found', `No event type ${ctx.params.type}`);
    ctx.body = entry;
  });
  return router;
}
