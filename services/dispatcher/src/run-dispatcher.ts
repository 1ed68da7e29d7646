import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import { createLogger, LogContextStore, type BerthLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import { createMetricsRegistry } from '@berth/metrics';
import {
  createAddressPolicy,
  DEFAULT_ALLOWED_PORTS,
  startDispatcher,
  type Clock,
  type Dispatcher,
} from '@berth/outbound';
import { createDispatcherApp } from './app';
import type { DispatcherConfig } from './config';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A running dispatcher process. */
export interface RunningDispatcher {
  readonly logger: BerthLogger;
  /** Where the API and `/healthz`, `/readyz`, `/metrics` are served. */
  readonly port: number;
  readonly dispatcher: Dispatcher;
  /** Stops pulling, lets running attempts finish, closes the HTTP server and the connections. */
  stop(): Promise<void>;
}

/**
 * Runs the dispatcher: connects MongoDB and NATS, provisions the outbound streams, fans events out and delivers
 * them ({@link startDispatcher}), and serves the endpoint management API with the health and metrics routes on
 * `PORT`. Logs "Dispatcher ready" with the port once it consumes. `clock` is for tests.
 */
export async function runDispatcher(
  config: DispatcherConfig,
  options: { clock?: Clock } = {},
): Promise<RunningDispatcher> {
  const logContext = new LogContextStore();
  const logger = createLogger({
    service: 'dispatcher',
    level: config.LOG_LEVEL,
    format: config.LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json'),
    context: logContext,
  });
  const registry = createMetricsRegistry({ processMetrics: true });
  let mongo: MongoClient | undefined;
  let messaging: Messaging | undefined;
  try {
    mongo = await MongoClient.connect(config.MONGO_URL);
    messaging = await connectMessaging({ servers: config.NATS_URL, name: 'dispatcher', logger });
    if (config.DISPATCHER_INSECURE_NO_AUTH) {
      logger.warn(
        { insecureNoAuth: true },
        'DISPATCHER_INSECURE_NO_AUTH=true: the management API accepts every request WITHOUT a token; anyone who reaches this port can create endpoints and read their secrets',
      );
    }
    const allowedPorts =
      config.OUTBOUND_ALLOWED_PORTS.length > 0 ? config.OUTBOUND_ALLOWED_PORTS : DEFAULT_ALLOWED_PORTS;
    const state = { ready: false };
    const connected = messaging;
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
      readiness: () => state.ready && connected.isConnected() && dispatcher.healthy(),
    });
    // A request must be complete within 30 s and its headers within 10 s (Node's defaults: 300 s and 60 s).
    const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, app.callback());
    server.listen(config.PORT, config.HOST);
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    state.ready = true;
    logger.info(
      {
        port,
        authentication: config.DISPATCHER_INSECURE_NO_AUTH ? 'none' : 'bearer',
        allowPrivateNetworks: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS,
        allowedPorts,
        endpoints: dispatcher.endpoints.all().length,
      },
      'Dispatcher ready',
    );
    const connections = { mongo, messaging };
    return {
      logger,
      port,
      dispatcher,
      async stop() {
        state.ready = false;
        await dispatcher.stop(config.SHUTDOWN_GRACE_MS);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await connections.messaging.close();
        await connections.mongo.close();
        logger.info('Dispatcher stopped');
      },
    };
  } catch (error) {
    await messaging?.close().catch(() => undefined);
    await mongo?.close().catch(() => undefined);
    throw error;
  }
}
