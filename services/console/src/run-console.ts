import { systemClock, type Clock } from '@berth/contract';
import { createServer } from 'node:http';
import type Koa from 'koa';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import type { BerthLogger } from '@berth/logger';
import { connectMessaging } from '@berth/messaging';
import { inboxCollections } from '@berth/inbox';
import { createJobProducer } from '@berth/jobs';
import { outboundCollections } from '@berth/outbound';
import { startService, type StartedService } from '@berth/service';
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
  /** The Koa app served on `port` (its routers list every route it answers). */
  readonly app: Koa;
  stop(): Promise<void>;
}

/**
 * Runs the console on the service shell ({@link startService}): builds the front end if it is missing, connects
 * MongoDB and NATS (read-only use of the stores the CLI reads, plus the actions' own operations), samples the
 * queues, and serves the app on `PORT`. Logs "Console listening" with the port once it serves. Never provisions a
 * stream: the services own their sizing.
 */
export async function runConsole(config: ConsoleConfig, options: { clock?: Clock } = {}): Promise<RunningConsole> {
  const clock = options.clock ?? systemClock;
  const running = await startService<StartedService & { port: number; app: Koa }>({
    name: 'console',
    log: { level: config.logLevel, format: config.logFormat },
    readyMessage: ({ port }) => `Console listening on :${port}`,
    stoppedMessage: 'Console stopped',
    async start({ logger, registry, own, ready }) {
      const webDir = config.webDir ?? DEFAULT_WEB_DIR;
      await ensureWebBuilt(webDir, logger);
      const mongo = own(await MongoClient.connect(config.mongoUrl, { appName: 'berth-console' }), (client) =>
        client.close(),
      );
      const messaging = own(
        await connectMessaging({ servers: config.natsUrl, name: 'berth-console', logger }),
        (nats) => nats.close(),
      );
      const db = mongo.db(config.mongoDb);
      const sampler = createQueueSampler({ messaging, logger, clock, intervalMs: config.sampleIntervalMs });
      const dependencies: ConsoleDependencies = {
        db,
        inbox: inboxCollections(db),
        outbound: outboundCollections(db),
        messaging,
        jobProducer: createJobProducer({ messaging, logger, infrastructure: { provisionStreams: false } }),
        logger,
        clock,
        consoleTokens: createConsoleTokenVerifier(config.tokens),
        signedTokens: createSignedTokens(config.signingKey),
        audit: createAuditLog(db, logger, clock),
        dispatcher: createDispatcherClient({
          baseUrl: config.dispatcherUrl,
          apiToken: config.dispatcherApiToken,
          clock,
        }),
        sampler,
        portalTokenTtlSeconds: config.portalTokenTtlSeconds,
        jaegerUiUrl: config.jaegerUiUrl,
        healthUrls: config.healthUrls,
      };
      const app = createConsoleApp(dependencies, {
        registry,
        readiness: ready,
        webDir,
        portalFrameAncestors: config.portalFrameAncestors,
      });
      const server = createServer(app.callback());
      server.listen(config.port, config.host);
      await once(server, 'listening');
      sampler.start();
      const port = (server.address() as AddressInfo).port;
      return {
        port,
        app,
        healthy: () => messaging.isConnected(),
        readyFields: { port, tokens: config.tokens.map((entry) => `${entry.name} (${entry.role})`) },
        async close() {
          sampler.stop();
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
    app: running.started.app,
    stop: () => running.stop(),
  };
}
