import 'reflect-metadata';
import type Stripe from 'stripe';
import { providerFilterSubject, STREAMS, WEBHOOK_CONSUMERS } from '@berth/contract';
import {
  defaultReplicaOwner,
  webhookConsumerApp,
  type WebhookConsumerAppOptions,
  type WebhookWorkerApp,
} from '@berth/webhook-handlers';
import { BillingSyncModule } from './billing-sync.module';
import type { BillingSyncConfig } from './config';
import { noopBillingSyncHooks, type BillingSyncHooks } from './hooks';
import { ensureBillingSyncIndexes } from './indexes';
import { billingCollections } from './workspaces/collections';

/** The durable consumer billing-sync reads: every Stripe event of stream `WEBHOOKS`. */
export const BILLING_SYNC_CONSUMER = {
  stream: STREAMS.webhooks,
  durable: WEBHOOK_CONSUMERS.billingSync,
  filterSubjects: [providerFilterSubject('stripe')],
} as const;

/** What {@link createBillingSyncApp} is built from. Everything a test may want to replace is here. */
export interface BillingSyncAppOptions extends WebhookConsumerAppOptions {
  config: Pick<
    BillingSyncConfig,
    'concurrency' | 'ackWaitMs' | 'inboxLeaseMs' | 'workspaceLockMs' | 'workspaceLockWaitMs' | 'shutdownGraceMs'
  >;
  stripe: Stripe;
  /** Defaults to no-ops. */
  hooks?: BillingSyncHooks;
}

/** A replica id unique across hosts and restarts. */
export const defaultOwner = defaultReplicaOwner;

/**
 * Builds billing-sync, after creating its indexes: a worker whose `StripeWebhooksProcessor` handles every event of
 * `webhooks.stripe.>` through `WebhooksModule` (durable consumer `billing-sync`). Call `listen()` to start consuming
 * and `close()` to stop pulling and let running handlers finish. The `WEBHOOKS` stream must exist.
 */
export async function createBillingSyncApp(options: BillingSyncAppOptions): Promise<WebhookWorkerApp> {
  const { config, logger } = options;
  await ensureBillingSyncIndexes(options.db);
  return webhookConsumerApp(
    options,
    {
      provider: 'stripe',
      consumer: BILLING_SYNC_CONSUMER.durable,
      concurrency: config.concurrency,
      ackWaitMs: config.ackWaitMs,
      leaseMs: config.inboxLeaseMs,
      shutdownGraceMs: config.shutdownGraceMs,
    },
    ({ clock, owner, webhooks }) =>
      BillingSyncModule.forRoot(
        {
          collections: billingCollections(options.db),
          stripe: options.stripe,
          logger,
          clock,
          owner,
          hooks: options.hooks ?? noopBillingSyncHooks,
          workspaceLockMs: config.workspaceLockMs,
          workspaceLockWaitMs: config.workspaceLockWaitMs,
        },
        webhooks,
      ),
  );
}
