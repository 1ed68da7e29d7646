import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { BerthLogger } from '@berth/logger';
import { connectMessaging, ensureStream, webhooksStream } from '@berth/messaging';
import { startService, type RunningService, type StartedService } from '@berth/service';
import { createGatewayApp } from './app';
import type { GatewayConfig } from './config';
import { waitForProviderConsumers } from './consumer-check';
import { GatewayMetrics } from './metrics';
import { JetStreamWebhookPublisher } from './publisher';

/** Longer than the usual load balancer idle timeout, so the balancer closes idle connections first. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** How often Node checks connections against `headersTimeout`/`requestTimeout` (its default is 30 s). */
const CONNECTIONS_CHECK_INTERVAL_MS = 1000;

/** What the gateway's start resolves with: the webhook port it listens on. */
export interface StartedGateway extends StartedService {
  readonly port: number;
}

/**
 * A running gateway: `started.port` is the webhook port, `healthPort` serves `/healthz`, `/readyz` and `/metrics`.
 * {@link RunningService.stop} stops accepting, lets in-flight requests finish (their publishes included), then
 * drains NATS.
 */
export type RunningGateway = RunningService<StartedGateway>;

/** The name of the gateway's NATS connection, as `nats server report connections` and `/connz` show it. */
export const GATEWAY_NATS_CONNECTION_NAME = 'berth-gateway';

/**
 * Runs the gateway through the service shell (`startService`: logger, health server, owned connections): serves
 * `/healthz`, `/readyz` and `/metrics` on `config.healthHost:config.healthPort` (ready once NATS is connected and the
 * stream exists), connects to NATS, provisions the `WEBHOOKS` stream (idempotent, every replica at every start),
 * waits for a consumer of every provider that is not store-only (refusing to start after
 * `WEBHOOK_CONSUMER_WAIT_MS`), and serves the gateway app on `config.host:config.port`. Logs
 * `Gateway listening on :<port>` (with `port` and `healthPort`) once it accepts requests.
 *
 * The webhook server bounds what a client holds before any signature check: the request head within
 * `http.headersTimeoutMs`, the whole request within `http.requestTimeoutMs` (the body's own, shorter deadline is
 * the route's), checked every second.
 */
export function runGateway(config: GatewayConfig): Promise<RunningGateway> {
  return startService<StartedGateway>({
    name: 'gateway',
    log: { level: config.logLevel, format: config.logFormat },
    health: { port: config.healthPort, host: config.healthHost },
    readyMessage: (started) => `Gateway listening on :${started.port}`,
    stoppedMessage: 'Gateway stopped',
    async start({ logger, registry, own }) {
      const messaging = own(
        await connectMessaging({ servers: config.natsUrl, name: GATEWAY_NATS_CONNECTION_NAME, logger }),
        async (connection) => {
          try {
            await connection.close();
          } catch (error) {
            // NATS unreachable: nothing is pending that a provider was told is stored (those requests got their PubAck).
            logger.warn({ err: error }, 'NATS drain failed; closing the connection');
            await connection.nc.close();
          }
        },
      );
      const stream = webhooksStream({ replicas: config.streamReplicas });
      const provisioned = await ensureStream(messaging.jsm, stream);
      logger.info({ stream: stream.name, provisioned }, 'JetStream stream ready');
      await waitForProviderConsumers({
        jsm: messaging.jsm,
        providers: config.providers,
        waitMs: config.consumerWaitMs,
        logger,
      });

      const metrics = new GatewayMetrics({ providerNames: config.knownProviderNames, registry });
      const publisher = own(
        new JetStreamWebhookPublisher({
          messaging,
          streamName: stream.name,
          timeoutMs: config.publishTimeoutMs,
          batching: config.batching,
          resendCopyAfterMs: config.resendCopyAfterMs,
        }),
        async (owned) => owned.close(),
      );
      const app = createGatewayApp({ config, publisher, logger, metrics });
      const server = createServer(
        {
          keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
          headersTimeout: config.http.headersTimeoutMs,
          requestTimeout: config.http.requestTimeoutMs,
          connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
        },
        app,
      );
      server.listen(config.port, config.host);
      await once(server, 'listening');
      const port = (server.address() as AddressInfo).port;
      return {
        port,
        // The owned publisher, then NATS, close after the server.
        close: () => closeServer(server, logger, config.shutdownGraceMs),
        healthy: () => publisher.isReady(),
        readyFields: { port, providers: config.providers.map((p) => p.name) },
      };
    },
  });
}

/** Stops accepting and closes keep-alive connections as they become idle; cuts the rest after the grace period. */
async function closeServer(server: Server, logger: BerthLogger, shutdownGraceMs: number): Promise<void> {
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
}
