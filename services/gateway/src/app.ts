import Koa from 'koa';
import Router from '@koa/router';
import type { BerthLogger } from '@berth/logger';
import type { Clock } from '@berth/webhooks';
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
 * Builds the gateway's Koa application (not listening):
 * - `POST /webhooks/:provider`: see {@link WebhookRoute}.
 * - `GET /healthz`: 200 while the process runs.
 * - `GET /readyz`: 200 when NATS is connected and the stream exists, else 503.
 * - `GET /metrics`: Prometheus text of this app's registry.
 *
 * @throws TypeError when a provider's secret is unusable (checked here, at boot).
 */
export function createGatewayApp(dependencies: GatewayAppDependencies): Koa {
  const { config, publisher, logger } = dependencies;
  const clock = dependencies.clock ?? (() => new Date());
  const metrics = dependencies.metrics ?? new GatewayMetrics({ providerNames: config.knownProviderNames });
  const webhooks = new WebhookRoute({
    providers: createProviderEndpoints(config.providers, clock),
    knownProviderNames: config.knownProviderNames,
    publisher,
    metrics,
    logger,
    clock,
    maxBodyBytes: config.maxBodyBytes,
    rateLimitPerMinute: config.rateLimitPerMinute,
  });

  const router = new Router();
  router.post('/webhooks/:provider', webhooks.handle);
  router.get('/healthz', (ctx) => respondJson(ctx, 200, '{"status":"ok"}'));
  router.get('/readyz', async (ctx) => {
    const ready = await publisher.isReady();
    respondJson(ctx, ready ? 200 : 503, ready ? '{"status":"ready"}' : '{"status":"not_ready"}');
  });
  router.get('/metrics', async (ctx) => {
    ctx.set('Content-Type', metrics.contentType);
    ctx.body = await metrics.render();
  });

  const app = new Koa({ proxy: config.trustProxy });
  app.on('error', (error: Error) => logger.error({ err: error }, 'Unhandled error in request'));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
