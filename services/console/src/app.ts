import Koa from 'koa';
import { koaBody } from 'koa-body';
import { createRouter, httpGuard } from '@berth/http-guard/koa';
import type { Registry } from '@berth/metrics';
import { ConsoleError } from './errors';
import { CONSOLE_ACTIONS } from './actions/registry';
import { actionRoutes } from './api/action-routes';
import { issueRoutes } from './api/issue-routes';
import { jobRoutes } from './api/job-routes';
import { outboundRoutes } from './api/outbound-routes';
import { overviewRoutes } from './api/overview-routes';
import { portalRoutes } from './api/portal-routes';
import { traceRoutes } from './api/trace-routes';
import { webhookRoutes } from './api/webhook-routes';
import { actorOf, consoleAccess } from './auth/authenticate';
import type { ConsoleDependencies } from './dependencies';
import { serveWeb } from './web/serve-web';

/** The largest JSON body the console takes. */
const MAX_BODY = '256kb';

/** What {@link createConsoleApp} serves besides the API. */
export interface ConsoleAppOptions {
  registry: Registry;
  readiness: () => boolean;
  webDir: string;
  portalFrameAncestors: string;
}

/**
 * The console's HTTP app: `/healthz`, `/readyz`, `/metrics`; the console API under `/api` (every route needs a
 * console token: `viewer` or `operator` to read, `operator` to run an action, previewed then confirmed); the
 * portal API under `/api/portal` (a portal token, one workspace); and the front end for every other GET.
 * One guard ({@link httpGuard}) decides on every request, on the route exactly as the routers match it: the probes
 * and the front end are public, each API router has its access, and any other spelling of a path (`/API/…`,
 * `/%61pi/…`, `/api//…`, `/api/…/`) is 404 before any route runs. Bodies are read only once the access passed.
 * Errors are JSON `{ error, message }`; a 5xx says no more than "internal error" and is logged.
 */
export function createConsoleApp(dependencies: ConsoleDependencies, options: ConsoleAppOptions): Koa {
  const { logger } = dependencies;
  const app = new Koa();
  app.proxy = false;
  app.on('error', (error: Error) => logger.error({ err: error }, 'Unhandled error in request'));
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const known =
        error instanceof ConsoleError
          ? error
          : (error as { status?: number }).status && (error as { status: number }).status < 500
            ? new ConsoleError((error as { status: number }).status, 'invalid_request', (error as Error).message)
            : undefined;
      if (!known) logger.error({ err: error, path: ctx.path, method: ctx.method }, 'Console request failed');
      ctx.status = known?.status ?? 500;
      ctx.body = { error: known?.code ?? 'internal', message: known ? known.message : 'internal error' };
    }
  });

  const probes = createRouter();
  probes.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  probes.get('/readyz', (ctx) => {
    const ready = options.readiness();
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready' };
  });
  probes.get('/metrics', async (ctx) => {
    ctx.set('Content-Type', options.registry.contentType);
    ctx.body = await options.registry.metrics();
  });

  const me = createRouter();
  me.get('/api/me', (ctx) => {
    ctx.body = { actor: actorOf(ctx), jaegerUiUrl: dependencies.jaegerUiUrl ?? null };
  });
  const [issuing, portal] = portalRoutes(dependencies);
  const actions = actionRoutes({
    prefix: '/api/actions',
    audience: 'console',
    actions: CONSOLE_ACTIONS,
    dependencies,
    actorOf,
  });
  // Any other path under /api is a JSON 404, not the front end's page.
  const apiNotFound = createRouter();
  apiNotFound.register('/api{/*rest}', ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], (ctx) => {
    throw new ConsoleError(404, 'not_found', `No route ${ctx.method} ${ctx.path}`);
  });
  const web = createRouter();
  web.get('/{*path}', serveWeb({ dir: options.webDir, portalFrameAncestors: options.portalFrameAncestors }));

  const body = koaBody({
    json: true,
    jsonLimit: MAX_BODY,
    text: false,
    urlencoded: false,
    multipart: false,
    jsonStrict: true,
  });
  const thenBody =
    (access: Koa.Middleware): Koa.Middleware =>
    (ctx, next) =>
      access(ctx, () => body(ctx, next));
  const access = consoleAccess(dependencies);

  // No answer of the console is cached but the front end's files (serveWeb sets theirs).
  app.use(async (ctx, next) => {
    ctx.set('Cache-Control', 'no-store');
    await next();
  });
  app.use(
    httpGuard([
      { routers: [probes], access: 'public' },
      { routers: [issuing], access: thenBody(access.issuers) },
      { routers: [portal], access: thenBody(access.portal) },
      { routers: [me], access: access.anyone },
      { routers: [actions], access: thenBody(access.operators) },
      {
        routers: [
          overviewRoutes(dependencies),
          webhookRoutes(dependencies),
          traceRoutes(dependencies),
          jobRoutes(dependencies),
          outboundRoutes(dependencies),
          issueRoutes(dependencies),
        ],
        access: access.readers,
      },
      { routers: [apiNotFound], access: 'public' },
      { routers: [web], access: 'public' },
    ]),
  );
  return app;
}
