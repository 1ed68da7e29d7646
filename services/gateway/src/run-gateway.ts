import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createLogger, type BerthLogger } from '@berth/logger';
import { connectMessaging, ensureStream, webhooksStream, type Messaging } from '@berth/messaging';
import { createGatewayApp, createHealthApp } from './app';
import type { GatewayConfig } from './config';
import { waitForProviderConsumers } from './consumer-check';
import { GatewayMetrics } from './metrics';
import { JetStreamWebhookPublisher, type WebhookPublisher } from './publisher';

/** Longer than the usual load balancer idle timeout, so the balancer closes idle connections first. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** How often Node checks connections against `headersTimeout`/`requestTimeout` (its default is 30 s). */
const CONNECTIONS_CHECK_INTERVAL_MS = 1000;

/** A running gateway. */
export interface RunningGateway {
  readonly logger: BerthLogger;
  readonly port: number;
  /** Where `/healthz`, `/readyz` and `/metrics` are served. */
  readonly healthPort: number;
  /** Stops accepting, lets in-flight requests finish (their publishes included), then drains NATS. */
  stop(): Promise<void>;
}

/**
 * Connects to NATS, provisions the `WEBHOOKS` stream (idempotent, every replica at every start), waits for a
 * consumer of every provider that is not store-only (refusing to start after `WEBHOOK_CONSUMER_WAIT_MS`), serves
 * `/healthz`, `/readyz` and `/metrics` on `config.healthHost:config.healthPort` and the gateway app on
 * `config.host:config.port`. Logs `Gateway listening on :<port>` (with `port` and `healthPort`) once it accepts
 * requests.
 *
 * The webhook server bounds what a client holds before any signature check: the request head within
 * `http.headersTimeoutMs`, the whole request within `http.requestTimeoutMs` (the body's own, shorter deadline is
 * the route's), checked every second.
 */
export async function runGateway(config: GatewayConfig): Promise<RunningGateway> {
  const logger = createLogger({
    service: 'gateway',
    level: config.logLevel,
    format: config.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json'),
  });
  const messaging = await connectMessaging({ servers: config.natsUrl, name: 'berth-gateway', logger });
  let health: Server | undefined;
  let publishing: WebhookPublisher | undefined;
  try {
    const stream = webhooksStream({ replicas: config.streamReplicas });
    const provisioned = await ensureStream(messaging.jsm, stream);
    logger.info({ stream: stream.name, provisioned }, 'JetStream stream ready');
    await waitForProviderConsumers({
      jsm: messaging.jsm,
      providers: config.providers,
      waitMs: config.consumerWaitMs,
      logger,
    });

    const metrics = new GatewayMetrics({ providerNames: config.knownProviderNames, processMetrics: true });
    const publisher = new JetStreamWebhookPublisher({
      messaging,
      streamName: stream.name,
      timeoutMs: config.publishTimeoutMs,
      batching: config.batching,
      resendCopyAfterMs: config.resendCopyAfterMs,
    });
    publishing = publisher;
    const app = createGatewayApp({ config, publisher, logger, metrics });

    const healthServer = createServer(createHealthApp({ publisher, metrics }).callback());
    health = healthServer;
    healthServer.listen(config.healthPort, config.healthHost);
    await once(healthServer, 'listening');
    const healthPort = (healthServer.address() as AddressInfo).port;

    const server = createServer(
      {
        keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
        headersTimeout: config.http.headersTimeoutMs,
        requestTimeout: config.http.requestTimeoutMs,
        connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
      },
      app.callback(),
    );
    server.listen(config.port, config.host);
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    logger.info({ port, healthPort, providers: config.providers.map((p) => p.name) }, `Gateway listening on :${port}`);
    return {
      logger,
      port,
      healthPort,
      stop: async () => {
        await stopGateway(server, publisher, messaging, logger, config.shutdownGraceMs);
        healthServer.closeAllConnections();
        await new Promise<void>((resolve) => healthServer.close(() => resolve()));
      },
    };
  } catch (error) {
    // Nothing may keep a failed start's process alive: it ends on its own once the start has failed.
    health?.closeAllConnections();
    if (health?.listening) await new Promise<void>((resolve) => health?.close(() => resolve()));
    publishing?.close();
    await messaging.close();
    throw error;
  }
}

async function stopGateway(
  server: Server,
  publisher: WebhookPublisher,
  messaging: Messaging,
  logger: BerthLogger,
  shutdownGraceMs: number,
): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive connections become idle as their last response goes out; close each as it does.
  server.closeIdleConnections();
  const idleSweep = setInterval(() => server.closeIdleConnections(), 50);
  const deadline = setTimeout(() => {
    logger.warn('Shutdown grace period over: closing the remaining connections');
    server.closeAllConnections();
  }, shutdownGraceMs);
  try {
    await closed;
  } finally {
    clearInterval(idleSweep);
    clearTimeout(deadline);
  }
  publisher.close();
  try {
    await messaging.close();
  } catch (error) {
    // NATS unreachable: nothing is pending that a provider was told is stored (those requests got their PubAck).
    logger.warn({ err: error }, 'NATS drain failed; closing the connection');
    await messaging.nc.close();
  }
  logger.info('Gateway stopped');
}
