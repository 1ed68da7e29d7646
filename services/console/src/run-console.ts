import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import { createLogger, type BerthLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import { createMetricsRegistry } from '@berth/metrics';
import { inboxCollections } from '@berth/inbox';
import { createJobProducer } from '@berth/jobs';
import { outboundCollections } from '@berth/outbound';
import { createAuditLog } from './actions/audit-log';
import { createConsoleApp } from './app';
import { createConsoleTokenVerifier } from './auth/console-tokens';
import { createSignedTokens } from './auth/signed-token';
import type { ConsoleConfig } from './config';
import type { ConsoleDependencies } from './dependencies';
import { createDispatcherClient } from './dispatcher-client';
import { createQueueSampler } from './overview/queue-sampler';
import { DEFAULT_WEB_DIR, ensureWebBuilt } from './web/ensure-web-built';

/** A running console. */
export interface RunningConsole {
  readonly logger: BerthLogger;
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * Runs the console: builds the front end if it is missing, connects MongoDB and NATS (read-only use of the stores
 * the CLI reads, plus the actions' own operations), samples the queues, and serves the app on `PORT`. Logs
 * "Console listening" with the port once it serves. Never provisions a stream: the services own their sizing.
 */
export async function runConsole(config: ConsoleConfig, options: { clock?: () => Date } = {}): Promise<RunningConsole> {
  const logger = createLogger({
    service: 'console',
    level: config.LOG_LEVEL,
    format: config.LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json'),
  });
  const clock = options.clock ?? (() => new Date());
  const webDir = config.CONSOLE_WEB_DIR ?? DEFAULT_WEB_DIR;
  await ensureWebBuilt(webDir, logger);
  let mongo: MongoClient | undefined;
  let messaging: Messaging | undefined;
  try {
    mongo = await MongoClient.connect(config.MONGO_URL, { appName: 'berth-console' });
    messaging = await connectMessaging({ servers: config.NATS_URL, name: 'berth-console', logger });
    const db = mongo.db(config.MONGO_DB);
    const registry = createMetricsRegistry({ processMetrics: true });
    const sampler = createQueueSampler({ messaging, logger, clock, intervalMs: config.CONSOLE_SAMPLE_INTERVAL_MS });
    const dependencies: ConsoleDependencies = {
      db,
      inbox: inboxCollections(db),
      outbound: outboundCollections(db),
      messaging,
      jobProducer: createJobProducer({ messaging, logger, infrastructure: { provisionStreams: false } }),
      logger,
      clock,
      consoleTokens: createConsoleTokenVerifier(config.CONSOLE_TOKENS),
      signedTokens: createSignedTokens(config.CONSOLE_SIGNING_KEY),
      audit: createAuditLog(db, logger, clock),
      dispatcher: createDispatcherClient({
        baseUrl: config.DISPATCHER_URL,
        apiToken: config.DISPATCHER_API_TOKEN,
        clock,
      }),
      sampler,
      portalTokenTtlSeconds: config.CONSOLE_PORTAL_TOKEN_TTL_SECONDS,
      jaegerUiUrl: config.JAEGER_UI_URL,
      healthUrls: config.CONSOLE_HEALTH_URLS,
    };
    const connected = messaging;
    const state = { ready: false };
    const app = createConsoleApp(dependencies, {
      registry,
      readiness: () => state.ready && connected.isConnected(),
      webDir,
      portalFrameAncestors: config.CONSOLE_PORTAL_FRAME_ANCESTORS,
    });
    const server = createServer(app.callback());
    server.listen(config.PORT, config.HOST);
    await once(server, 'listening');
    sampler.start();
    const port = (server.address() as AddressInfo).port;
    state.ready = true;
    logger.info(
      { port, tokens: config.CONSOLE_TOKENS.map((entry) => `${entry.name} (${entry.role})`) },
      `Console listening on :${port}`,
    );
    const connections = { mongo, messaging };
    return {
      logger,
      port,
      async stop() {
        state.ready = false;
        sampler.stop();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await connections.messaging.close();
        await connections.mongo.close();
        logger.info('Console stopped');
      },
    };
  } catch (error) {
    await messaging?.close().catch(() => undefined);
    await mongo?.close().catch(() => undefined);
    throw error;
  }
}
