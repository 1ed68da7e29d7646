import { createServer } from 'node:http';
import type Koa from 'koa';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import type { Clock } from '@berth/contract';
import type { BerthLogger } from '@berth/logger';
import { connectMessaging } from '@berth/messaging';
import { createAddressPolicy, DEFAULT_ALLOWED_PORTS, startDispatcher, type Dispatcher } from '@berth/outbound';
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
 * API with the health and metrics routes on `config.port` (`PORT`). Logs "Dispatcher ready" with the port once it consumes. `clock`
 * is for tests.
 */
export async function runDispatcher(
  config: DispatcherConfig,
  options: { clock?: Clock } = {},
): Promise<RunningDispatcher> {
  const running = await startService({
    name: 'dispatcher',
    log: { level: config.logLevel, format: config.logFormat },
    readyMessage: 'Dispatcher ready',
    stoppedMessage: 'Dispatcher stopped',
    async start({ logger, logContext, registry, own, ready }) {
      const mongo = own(await MongoClient.connect(config.mongoUrl), (client) => client.close());
      const messaging = own(await connectMessaging({ servers: config.natsUrl, name: 'dispatcher', logger }), (nats) =>
        nats.close(),
      );
      if (config.insecureNoAuth) {
        logger.warn(
          { insecureNoAuth: true },
          'DISPATCHER_INSECURE_NO_AUTH=true: the management API accepts every request WITHOUT a token; anyone who reaches this port can create endpoints and read their secrets',
        );
      }
      const allowedPorts = config.allowedPorts.length > 0 ? config.allowedPorts : DEFAULT_ALLOWED_PORTS;
      const dispatcher = await startDispatcher({
        messaging,
        db: mongo.db(config.mongoDb),
        logger,
        logContext,
        registry,
        clock: options.clock,
        policy: createAddressPolicy({ allowPrivateNetworks: config.allowPrivateNetworks, allowedPorts }),
        retrySchedule: config.retryScheduleMs.length > 0 ? config.retryScheduleMs : undefined,
        retryJitter: config.retryJitter,
        timeoutMs: config.timeoutMs,
        endpointConcurrency: config.endpointConcurrency,
        fanOutConcurrency: config.fanOutConcurrency,
        endpointReloadMs: config.endpointReloadMs,
        disableAfterFailingMs: config.disableAfterFailingDays * DAY_MS,
        retention: {
          maxAgeMs: config.deliveryRetentionDays * DAY_MS,
          intervalMs: config.retentionIntervalMs,
        },
        sizing: { replicas: config.streamReplicas },
      });
      const app = createDispatcherApp({
        dispatcher,
        messaging,
        registry,
        logger,
        apiToken: config.apiToken,
        clock: options.clock,
        readiness: ready,
      });
      // A request must be complete within 30 s and its headers within 10 s (Node's defaults: 300 s and 60 s).
      const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, app.callback());
      try {
        server.listen(config.port, config.host);
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
          authentication: config.insecureNoAuth ? 'none' : 'bearer',
          allowPrivateNetworks: config.allowPrivateNetworks,
          allowedPorts,
          endpoints: dispatcher.endpoints.all().length,
        },
        async close() {
          await dispatcher.stop(config.shutdownGraceMs);
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
