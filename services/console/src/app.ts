import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import type { Registry } from '@berth/metrics';
import { ConsoleError } from './errors';
import { CONSOLE_ACTIONS } from './actions/registry';
import { actionRoutes } from './api/action-routes';
import { issueRoutes } from './api/issue-routes';
import { jobRoutes } from './api/job-routes';
import { outboundRoutes } from './api/outbound-routes';
import { overviewRoutes } from './api/overview-routes';
import { portalRoutes } from './api/portal-routes';
import { webhookRoutes } from './api/webhook-routes';
import { actorOf, authorize } from './auth/authenticate';
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

  const probes = new Router();
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
  app.use(probes.routes());
  app.use(async (ctx, next) => {
    if (ctx.path.startsWith('/api/')) ctx.set('Cache-Control', 'no-store');
    await next();
  });
  app.use(authorize(dependencies));
  app.use(
    koaBody({ json: true, jsonLimit: MAX_BODY, text: false, urlencoded: false, multipart: false, jsonStrict: true }),
  );

  for (const router of portalRoutes(dependencies)) app.use(router.routes()).use(router.allowedMethods());

  const api = new Router({ prefix: '/api' });
  api.get('/me', (ctx) => {
    ctx.body = { actor: actorOf(ctx), jaegerUiUrl: dependencies.jaegerUiUrl ?? null };
  });
  app.use(api.routes());

  for (const router of [
    overviewRoutes(dependencies),
    webhookRoutes(dependencies),
    jobRoutes(dependencies),
    outboundRoutes(dependencies),
    issueRoutes(dependencies),
  ]) {
    app.use(router.routes()).use(router.allowedMethods());
  }

  app.use(
    actionRoutes({
      prefix: '/api/actions',
      audience: 'console',
      actions: CONSOLE_ACTIONS,
      dependencies,
      actorOf,
    }).routes(),
  );

  app.use(async (ctx, next) => {
    if (!ctx.path.startsWith('/api/')) return next();
    throw new ConsoleError(404, 'not_found', `No route ${ctx.method} ${ctx.path}`);
  });
  app.use(serveWeb({ dir: options.webDir, portalFrameAncestors: options.portalFrameAncestors }));
  return app;
}
