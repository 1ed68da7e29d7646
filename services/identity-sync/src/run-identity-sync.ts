import 'reflect-metadata';
import type { RunningService, StartedService } from '@berth/service';
import { startWebhookConsumerService } from '@berth/webhook-handlers';
import { IDENTITY_SYNC_CONSUMER, createIdentitySyncApp } from './app';
import type { IdentitySyncConfig } from './config';

/** A running identity-sync: {@link RunningService.stop} stops pulling, lets running handlers finish, closes the rest. */
export type RunningIdentitySync = RunningService<StartedService>;

/**
 * Runs identity-sync as a webhook consumer service ({@link startWebhookConsumerService}): consumes
 * `webhooks.clerk.>` and logs "Identity sync ready" with the health port.
 *
 * Loaded by `main.ts` after tracing has started, so `mongodb` and the app are instrumented.
 */
export function runIdentitySync(config: IdentitySyncConfig): Promise<RunningIdentitySync> {
  return startWebhookConsumerService({
    name: 'identity-sync',
    provider: 'clerk',
    consumer: IDENTITY_SYNC_CONSUMER,
    config,
    readyMessage: 'Identity sync ready',
    readyFields: { concurrency: config.concurrency },
    stoppedMessage: 'Identity sync stopped',
    createApp: ({ messaging, db, logger, logContext, onOutcome }) =>
      createIdentitySyncApp({ config, messaging, db, logger, logContext, onOutcome }),
  });
}
