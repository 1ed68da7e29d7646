import 'reflect-metadata';
import { MongoClient } from 'mongodb';
import { createLogger, LogContextStore } from '@berth/logger';
import { connectMessaging } from '@berth/messaging';
import { createIdentitySyncApp } from './app';
import { loadConfig } from './config';
import { ensureWebhooksStreamExists } from './webhooks-stream';

/**
 * Starts identity-sync: validates its environment, connects MongoDB and NATS, makes sure stream `WEBHOOKS` exists,
 * consumes `webhooks.clerk.>`, logs "Identity sync ready". SIGTERM/SIGINT: stop pulling, let running handlers
 * finish, close connections, exit 0.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logContext = new LogContextStore();
  const logger = createLogger({ service: 'identity-sync', level: config.LOG_LEVEL, format: config.LOG_FORMAT, context: logContext });
  const mongo = await MongoClient.connect(config.MONGO_URL);
  const messaging = await connectMessaging({ servers: config.NATS_URL, name: 'identity-sync', logger });
  await ensureWebhooksStreamExists(messaging.jsm);
  const app = await createIdentitySyncApp({ config, messaging, db: mongo.db(config.MONGO_DB), logger, logContext });
  await app.listen();
  logger.info({ concurrency: config.IDENTITY_SYNC_CONCURRENCY }, 'Identity sync ready');

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'Stopping: no new events, finishing running handlers');
    try {
      await app.close();
      await messaging.close();
      await mongo.close();
      logger.info('Identity sync stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'Unclean stop');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`identity-sync failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
