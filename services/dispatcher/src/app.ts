import Koa from 'koa';
import { systemClock, type Clock } from '@berth/contract';
import type { GuardRefusal } from '@berth/http-guard';
import { createRouter, httpGuard } from '@berth/http-guard/koa';
import type { BerthLogger } from '@berth/logger';
import type { Messaging } from '@berth/messaging';
import type { Registry } from '@berth/metrics';
import {
  announceEndpointChange,
  berthEventCatalog,
  EndpointNotFoundError,
  InvalidEndpointError,
  ReplayRefusedError,
  type Dispatcher,
  type EventCatalog,
} from '@berth/outbound';
import { deliveryRoutes } from './api/delivery-routes';
import { endpointRoutes } from './api/endpoint-routes';
import { eventTypeRoutes } from './api/event-type-routes';
import { ApiError } from './api/read-json-body';
import { requireBearerToken } from './api/authenticate';

/** What {@link createDispatcherApp} is built from. */
export interface DispatcherAppDependencies {
  dispatcher: Dispatcher;
  messaging: Messaging;
  registry: Registry;
  logger: BerthLogger;
  /**
   * Bearer token every request but the probes must carry. `undefined` turns the check off, which only an explicit
   * `DISPATCHER_INSECURE_NO_AUTH=true` may ask for (see config.ts).
   */
  apiToken: string | undefined;
  clock?: Clock;
  readiness: () => boolean;
  /** The event types served on `/v1/event-types`; default: Berth's registered catalog. */
  catalog?: EventCatalog;
}

/**
 * The dispatcher's HTTP app: the endpoint management API and delivery log under `/v1` (see {@link endpointRoutes},
 * {@link deliveryRoutes}), JSON errors `{ error, message }`, and `GET /healthz`, `/readyz`, `/metrics`. The
 * shared guard ({@link httpGuard}) decides on each request: the probes are public, every other route needs the
 * bearer token ({@link requireBearerToken}), and any other spelling of a path, or a path no route takes, is 404
 * before any route or token check runs. A change to an endpoint is announced to every replica and applied to this
 * one before the answer.
 */
export function createDispatcherApp(dependencies: DispatcherAppDependencies): Koa {
  const { dispatcher, messaging, logger } = dependencies;
  const clock = dependencies.clock ?? systemClock;
  const operations = {
    collections: dispatcher.collections,
    clock,
    onChanged: async (endpointId: string) => {
      await announceEndpointChange(messaging.nc, endpointId);
      await dispatcher.reloadEndpoints();
    },
  };
  const replay = { js: messaging.js, collections: dispatcher.collections, clock };

  const probes = createRouter();
  probes.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  probes.get('/readyz', (ctx) => {
    const ready = dependencies.readiness();
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready' };
  });
  probes.get('/metrics', async (ctx) => {
    ctx.set('Content-Type', dependencies.registry.contentType);
    ctx.body = await dependencies.registry.metrics();
  });

  const app = new Koa();
  app.on('error', (error: Error) => logger.error({ err: error }, 'Unhandled error in request'));
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const [status, code] = statusOf(error);
      if (status >= 500) logger.error({ err: error, path: ctx.path }, 'Management API request failed');
      ctx.status = status;
      ctx.body = { error: code, message: status >= 500 ? 'internal error' : (error as Error).message };
    }
  });
  app.use(
    httpGuard(
      [
        { routers: [probes], access: 'public' },
        {
          routers: [
            endpointRoutes(operations, replay, clock),
            deliveryRoutes(replay),
            eventTypeRoutes(dependencies.catalog ?? berthEventCatalog()),
          ],
          // Without a token only by DISPATCHER_INSECURE_NO_AUTH=true (see config.ts), said out loud at start.
          access: dependencies.apiToken === undefined ? 'public' : requireBearerToken({ token: dependencies.apiToken }),
        },
      ],
      { refuse: refused },
    ),
  );
  return app;
}

/** A request the guard refused: 404 (no such route, or not its spelling) or 405 (a method the route does not take). */
function refused(ctx: Koa.Context, refusal: GuardRefusal): never {
  if (refusal.status === 404) throw new ApiError(404, 'not_found', 'no such route');
  ctx.set('Allow', refusal.allow.join(', '));
  throw new ApiError(405, 'method_not_allowed', 'this method is not allowed here');
}

function statusOf(error: unknown): [number, string] {
  if (error instanceof ApiError) return [error.status, error.code];
  if (error instanceof EndpointNotFoundError) return [404, 'not_found'];
  if (error instanceof InvalidEndpointError) return [400, 'invalid_request'];
  if (error instanceof ReplayRefusedError) return [409, 'conflict'];
  return [500, 'internal'];
}
