import type Router from '@koa/router';
import { createRouter } from '@berth/http-guard/koa';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  recoverEndpoint,
  rotateEndpointSecret,
  setEndpointEnabled,
  toEndpointView,
  updateEndpoint,
  type EndpointOperationDependencies,
  type ReplayDependencies,
} from '@berth/outbound';
import type { Clock } from '@berth/contract';
import { readJsonBody } from './read-json-body';
import { createEndpointBody, recoverBody, rotateSecretBody, updateEndpointBody } from './request-schemas';
import { parseWith } from './parse-with';

/**
 * The endpoint routes of the management API (Svix-like):
 * `POST /v1/endpoints`, `GET /v1/endpoints?workspaceId=`, `GET|PATCH|DELETE /v1/endpoints/:id`,
 * `POST /v1/endpoints/:id/disable|enable|rotate-secret|recover`.
 */
export function endpointRoutes(
  operations: EndpointOperationDependencies,
  replay: ReplayDependencies,
  clock: Clock,
): Router {
  const router = createRouter();
  router.post('/v1/endpoints', async (ctx) => {
    const body = parseWith(createEndpointBody, await readJsonBody(ctx));
    ctx.status = 201;
    ctx.body = await createEndpoint(operations, body);
  });
  router.get('/v1/endpoints', async (ctx) => {
    const workspaceId = typeof ctx.query.workspaceId === 'string' ? ctx.query.workspaceId : undefined;
    ctx.body = {
      data: (await listEndpoints(operations, { workspaceId })).map((endpoint) => toEndpointView(endpoint, clock.now())),
    };
  });
  router.get('/v1/endpoints/:id', async (ctx) => {
    ctx.body = toEndpointView(await getEndpoint(operations, ctx.params.id), clock.now());
  });
  router.patch('/v1/endpoints/:id', async (ctx) => {
    ctx.body = await updateEndpoint(operations, ctx.params.id, parseWith(updateEndpointBody, await readJsonBody(ctx)));
  });
  router.delete('/v1/endpoints/:id', async (ctx) => {
    await deleteEndpoint(operations, ctx.params.id);
    ctx.status = 204;
  });
  router.post('/v1/endpoints/:id/disable', async (ctx) => {
    ctx.body = await setEndpointEnabled(operations, ctx.params.id, false);
  });
  router.post('/v1/endpoints/:id/enable', async (ctx) => {
    ctx.body = await setEndpointEnabled(operations, ctx.params.id, true);
  });
  router.post('/v1/endpoints/:id/rotate-secret', async (ctx) => {
    const body = parseWith(rotateSecretBody, await readJsonBody(ctx));
    ctx.body = await rotateEndpointSecret(operations, ctx.params.id, {
      overlapMs: body.overlapSeconds === undefined ? undefined : body.overlapSeconds * 1000,
      secret: body.secret,
    });
  });
  router.post('/v1/endpoints/:id/recover', async (ctx) => {
    const body = parseWith(recoverBody, await readJsonBody(ctx));
    await getEndpoint(operations, ctx.params.id);
    const replayed = await recoverEndpoint(replay, ctx.params.id, new Date(body.since));
    ctx.status = 202;
    ctx.body = { replayed: replayed.length, deliveries: replayed };
  });
  return router;
}
