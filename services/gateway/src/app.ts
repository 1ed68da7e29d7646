import Koa from 'koa';
import { createRouter, httpGuard } from '@berth/http-guard';
import type { BerthLogger } from '@berth/logger';
import { systemClock, type Clock } from '@berth/contract';
import type { GatewayConfig } from './config';
import { GatewayMetrics } from './metrics';
import { createProviderEndpoints } from './providers';
import type { WebhookPublisher } from './publisher';
import { respondJson } from './responses';
import { WebhookRoute } from './webhook-route';

/** What {@link createGatewayApp} is built from; everything is passed in, so tests need no real process. */
export interface GatewayAppDependencies {
  readonly config: GatewayConfig;
  readonly publisher: WebhookPublisher;
  readonly logger: BerthLogger;
  /** Source of "now" for signature tolerance, rate limiting and `Berth-Received-At`; the wall clock by default. */
  readonly clock?: Clock;
  /** Metrics to record into; a fresh registry by default (read it on `GET /metrics`). */
  readonly metrics?: GatewayMetrics;
}

/**
 * Builds the gateway's public Koa application (not listening):
 * - `POST /webhooks/:provider`: see {@link WebhookRoute}.
 * - `GET /healthz`: 200 while the process runs.
 *
 * `/readyz` and `/metrics` are served by the service shell's health server on the health port, not here: the
 * webhook port is open to the internet, and neither the stream state nor the metrics are anyone's business there.
 *
 * With `trustProxy` the client IP is the `X-Forwarded-For` entry `trustProxyHops` places from the right (the one
 * the outermost trusted proxy appended), never an entry the client wrote itself.
 *
 * @throws TypeError when a provider's secret is unusable (checked here, at boot).
 */
export function createGatewayApp(dependencies: GatewayAppDependencies): Koa {
  const { config, publisher, logger } = dependencies;
  const clock = dependencies.clock ?? systemClock;
  const metrics = dependencies.metrics ?? new GatewayMetrics({ providerNames: config.knownProviderNames });
  const webhooks = new WebhookRoute({
    providers: createProviderEndpoints(config.providers, clock),
    knownProviderNames: config.knownProviderNames,
    publisher,
    metrics,
    logger,
    clock,
    maxBodyBytes: config.maxBodyBytes,
    bodyTimeoutMs: config.unauthenticated.bodyTimeoutMs,
    maxBodiesPerIp: config.unauthenticated.maxBodiesPerIp,
    rateLimitPerMinute: config.rateLimitPerMinute,
  });

  const router = createRouter();
  router.post('/webhooks/:provider', webhooks.handle);
  router.get('/healthz', healthz);

  const app = new Koa({ proxy: config.trustProxy, maxIpsCount: config.trustProxyHops });
  app.on('error', (error: Error) => logger.error({ err: error }, 'Unhandled error in request'));
  app.use(refuseOptions);
  // Both routes are public: a webhook's credential is its signature, checked by the route over the exact bytes.
  app.use(httpGuard([{ routers: [router], access: 'public' }]));
  return app;
}

const healthz = (ctx: Koa.Context): void => respondJson(ctx, 200, '{"status":"ok"}');

/** Providers POST and probes GET: no CORS preflight or method discovery is answered on the public port. */
const refuseOptions: Koa.Middleware = async (ctx, next) => {
  if (ctx.method !== 'OPTIONS') return next();
  respondJson(ctx, 405, '{"error":"method_not_allowed"}');
};
