import type { ServerResponse } from 'node:http';
import { trace } from '@opentelemetry/api';
import { nodeGuard, type NodeGuard, type NodeRouteHandler } from '@berth/http-guard';
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
 * Builds the gateway's public request listener (for `http.createServer`; not listening), served by Node's own
 * server through the shared guard (`nodeGuard`: no framework per request on the port that takes every webhook):
 * - `POST /webhooks/:provider`: see {@link WebhookRoute}.
 * - `GET /healthz`: 200 while the process runs.
 * Any other path, spelling or method is refused by the guard (404, or 405 with `Allow`) before a route runs.
 *
 * `/readyz` and `/metrics` are served by the service shell's health server on the health port, not here: the
 * webhook port is open to the internet, and neither the stream state nor the metrics are anyone's business there.
 *
 * With `trustProxy` the client IP is the `X-Forwarded-For` entry `trustProxyHops` places from the right (the one
 * the outermost trusted proxy appended), never an entry the client wrote itself.
 *
 * @throws TypeError when a provider's secret is unusable (checked here, at boot).
 */
export function createGatewayApp(dependencies: GatewayAppDependencies): NodeGuard {
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
    clientIp: { trustProxy: config.trustProxy, trustProxyHops: config.trustProxyHops },
  });

  // Both routes are public: a webhook's credential is its signature, checked by the route over the exact bytes.
  return nodeGuard(
    [
      {
        routes: [
          {
            method: 'POST',
            path: '/webhooks/:provider',
            serve: tracedRoute('POST', '/webhooks/:provider', webhooks.handle),
          },
          { method: 'GET', path: '/healthz', serve: (_request, response) => healthz(response) },
        ],
        access: 'public',
      },
    ],
    { onError: (error) => logger.error({ err: error }, 'Unhandled error in request') },
  );
}

/**
 * Names the request's HTTP server span after its route (`POST /webhooks/:provider`, with `http.route`), as a
 * framework's instrumentation would; nothing happens while tracing is off (there is no active span).
 */
function tracedRoute(method: string, route: string, serve: NodeRouteHandler): NodeRouteHandler {
  const name = `${method} ${route}`;
  return (request, response, params) => {
    trace.getActiveSpan()?.updateName(name).setAttribute('http.route', route);
    return serve(request, response, params);
  };
}

const healthz = (response: ServerResponse): void => respondJson(response, 200, '{"status":"ok"}');
