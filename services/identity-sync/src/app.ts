import 'reflect-metadata';
import { providerFilterSubject, STREAMS, WEBHOOK_CONSUMERS } from '@berth/contract';
import { webhookConsumerApp, type WebhookConsumerAppOptions, type WebhookWorkerApp } from '@berth/webhook-handlers';
import { identityCollections } from './collections';
import type { IdentitySyncConfig } from './config';
import { IdentitySyncModule } from './identity-sync.module';
import { ensureIdentitySyncIndexes } from './indexes';

/** The durable consumer identity-sync reads: every Clerk event of stream `WEBHOOKS`. */
export const IDENTITY_SYNC_CONSUMER = {
  stream: STREAMS.webhooks,
  durable: WEBHOOK_CONSUMERS.identitySync,
  filterSubjects: [providerFilterSubject('clerk')],
} as const;

/** What {@link createIdentitySyncApp} is built from. Everything a test may want to replace is here. */
export interface IdentitySyncAppOptions extends WebhookConsumerAppOptions {
  config: Pick<IdentitySyncConfig, 'concurrency' | 'ackWaitMs' | 'inboxLeaseMs' | 'shutdownGraceMs'>;
}

/**
 * Builds identity-sync, after creating its indexes: a worker whose `ClerkWebhooksProcessor` handles every event of
 * `webhooks.clerk.>` through `WebhooksModule` (durable consumer `identity-sync`). Call `listen()` to start consuming
 * and `close()` to stop pulling and let running handlers finish. The `WEBHOOKS` stream must exist.
 */
export async function createIdentitySyncApp(options: IdentitySyncAppOptions): Promise<WebhookWorkerApp> {
  const { config, logger } = options;
  await ensureIdentitySyncIndexes(options.db);
  return webhookConsumerApp(
    options,
    {
      provider: 'clerk',
      consumer: IDENTITY_SYNC_CONSUMER.durable,
      concurrency: config.concurrency,
      ackWaitMs: config.ackWaitMs,
      leaseMs: config.inboxLeaseMs,
      shutdownGraceMs: config.shutdownGraceMs,
    },
    ({ clock, owner, webhooks }) =>
      IdentitySyncModule.forRoot({ collections: identityCollections(options.db), logger, clock, owner }, webhooks),
  );
}
