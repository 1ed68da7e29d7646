import 'reflect-metadata';
import { createJobProducer } from '@berth/jobs';
import type { RunningService, StartedService } from '@berth/service';
import { startWebhookConsumerService } from '@berth/webhook-handlers';
import { BILLING_SYNC_CONSUMER, createBillingSyncApp } from './app';
import type { BillingSyncConfig } from './config';
import { memberLimitHooks } from './member-limit-hooks';
import { createStripeClient } from './stripe/create-stripe-client';

/** A running billing-sync: {@link RunningService.stop} stops pulling, lets running handlers finish, closes the rest. */
export type RunningBillingSync = RunningService<StartedService>;

/**
 * Runs billing-sync as a webhook consumer service ({@link startWebhookConsumerService}): consumes
 * `webhooks.stripe.>` and logs "Billing sync ready" with the health port. After each subscription sync it queues
 * app-worker's `ApplyWorkspaceMemberLimitJob` for the workspace ({@link memberLimitHooks}).
 *
 * Loaded by `main.ts` after tracing has started, so `mongodb`, `http` (the Stripe client) and the app are
 * instrumented.
 */
export function runBillingSync(config: BillingSyncConfig): Promise<RunningBillingSync> {
  return startWebhookConsumerService({
    name: 'billing-sync',
    provider: 'stripe',
    consumer: BILLING_SYNC_CONSUMER,
    config,
    readyMessage: 'Billing sync ready',
    readyFields: {
      concurrency: config.concurrency,
      stripeApi: config.stripeApiBase ?? 'https://api.stripe.com',
    },
    stoppedMessage: 'Billing sync stopped',
    createApp: ({ messaging, db, logger, logContext, onOutcome }) => {
      // After a subscription change: ApplyWorkspaceMemberLimitJob on billing-queue, once per workspace while it waits.
      const jobs = createJobProducer({
        messaging,
        logger,
        infrastructure: { sizing: { replicas: config.streamReplicas } },
      });
      const hooks = memberLimitHooks(jobs, logger);
      return createBillingSyncApp({
        config,
        messaging,
        db,
        stripe: createStripeClient(config),
        logger,
        logContext,
        onOutcome,
        hooks,
      });
    },
  });
}
