import { createServer } from 'node:http';
import type Koa from 'koa';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import type { BerthLogger } from '@berth/logger';
import { connectMessaging } from '@berth/messaging';
import {
  createAddressPolicy,
  DEFAULT_ALLOWED_PORTS,
  startDispatcher,
  type Clock,
  type Dispatcher,
} from '@berth/outbound';
import { startService } from '@berth/service';
import { createDispatcherApp } from './app';
import type { DispatcherConfig } from './config';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A running dispatcher process. */
export interface RunningDispatcher {
  readonly logger: BerthLogger;
  /** Where the API and `/healthz`, `/readyz`, `/metrics` are served. */
  readonly port: number;
  readonly dispatcher: Dispatcher;
  /** The Koa app served on `port` (its routers list every route it answers). */
  readonly app: Koa;
  /** Stops pulling, lets running attempts finish, closes the HTTP server and the connections. */
  stop(): Promise<void>;
}

/**
 * Runs the dispatcher on the service shell ({@link startService}): connects MongoDB and NATS, provisions the
 * outbound streams, fans events out and delivers them ({@link startDispatcher}), and serves the endpoint management
 * API with the health and metrics routes on `PORT`. Logs "Dispatcher ready" with the port once it consumes. `clock`
 * is for tests.
 */
export async function runDispatcher(
  config: DispatcherConfig,
  options: { clock?: Clock } = {},
): Promise<RunningDispatcher> {
  const running = await startService({
    name: 'dispatcher',
    log: { level: config.LOG_LEVEL, format: config.LOG_FORMAT },
    readyMessage: 'Dispatcher ready',
    stoppedMessage: 'Dispatcher stopped',
    async start({ logger, logContext, registry, own, ready }) {
      const mongo = own(await MongoClient.connect(config.MONGO_URL), (client) => client.close());
      const messaging = own(await connectMessaging({ servers: config.NATS_URL, name: 'dispatcher', logger }), (nats) =>
        nats.close(),
      );
      if (config.DISPATCHER_INSECURE_NO_AUTH) {
        logger.warn(
          { insecureNoAuth: true },
          'DISPATCHER_INSECURE_NO_AUTH=true: the management API accepts every request WITHOUT a token; anyone who reaches this port can create endpoints and read their secrets',
        );
      }
      const allowedPorts =
        config.OUTBOUND_ALLOWED_PORTS.length > 0 ? config.OUTBOUND_ALLOWED_PORTS : DEFAULT_ALLOWED_PORTS;
      const dispatcher = await startDispatcher({
        messaging,
        db: mongo.db(config.MONGO_DB),
        logger,
        logContext,
        registry,
        clock: options.clock,
        policy: createAddressPolicy({ allowPrivateNetworks: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS, allowedPorts }),
        retrySchedule: config.OUTBOUND_RETRY_SCHEDULE_MS.length > 0 ? config.OUTBOUND_RETRY_SCHEDULE_MS : undefined,
        retryJitter: config.OUTBOUND_RETRY_JITTER,
        timeoutMs: config.OUTBOUND_TIMEOUT_MS,
        endpointConcurrency: config.DISPATCHER_ENDPOINT_CONCURRENCY,
        fanOutConcurrency: config.DISPATCHER_FAN_OUT_CONCURRENCY,
        endpointReloadMs: config.DISPATCHER_ENDPOINT_RELOAD_MS,
        disableAfterFailingMs: config.OUTBOUND_DISABLE_AFTER_FAILING_DAYS * DAY_MS,
        retention: {
          maxAgeMs: config.OUTBOUND_DELIVERY_RETENTION_DAYS * DAY_MS,
          intervalMs: config.OUTBOUND_RETENTION_INTERVAL_MS,
        },
        sizing: { replicas: config.STREAM_REPLICAS },
      });
      const app = createDispatcherApp({
        dispatcher,
        messaging,
        registry,
        logger,
        apiToken: config.DISPATCHER_API_TOKEN,
        clock: options.clock,
        readiness: ready,
      });
      // A request must be complete within 30 s and its headers within 10 s (Node's defaults: 300 s and 60 s).
      const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, app.callback());
      try {
        server.listen(config.PORT, config.HOST);
        await once(server, 'listening');
      } catch (error) {
        // A failed start leaves nothing running (the dispatcher's consumers, its timers), so its process ends.
        await dispatcher.stop(0).catch(() => undefined);
        throw error;
      }
      const port = (server.address() as AddressInfo).port;
      return {
        port,
        dispatcher,
        app,
        healthy: () => messaging.isConnected() && dispatcher.healthy(),
        readyFields: {
          port,
          authentication: config.DISPATCHER_INSECURE_NO_AUTH ? 'none' : 'bearer',
          allowPrivateNetworks: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS,
          allowedPorts,
          endpoints: dispatcher.endpoints.all().length,
        },
        async close() {
          await dispatcher.stop(config.SHUTDOWN_GRACE_MS);
          await new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          });
        },
      };
    },
  });
  return {
    logger: running.logger,
    port: running.started.port,
    dispatcher: running.started.dispatcher,
    app: running.started.app,
    stop: () => running.stop(),
  };
}
