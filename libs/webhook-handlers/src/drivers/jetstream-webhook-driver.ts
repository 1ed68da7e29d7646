import { STREAMS } from '@berth/contract';
import { inboxCollections, webhookLogContext, webhookMessageWeight, type Inbox } from '@berth/inbox';
import type { Clock } from '@berth/contract';
import {
  ensureConsumer,
  ensureWebhooksStreamExists,
  startConsumer,
  WEBHOOK_RETRY_POLICY,
  type ConsumerRunner,
  type Messaging,
} from '@berth/messaging';
import type { WebhookRegistry } from '../discovery/webhook-registry';
import { dispatchWebhook } from '../dispatch-webhook';
import { providerFilterSubject } from '../names';
import type { WebhooksModuleOptions } from '../webhooks-module-options';
import { consumerSettingsOf } from './consumer-settings';
import { handleWebhookMessage } from './handle-webhook-message';
import type { WebhookDriver } from './webhook-driver';

/** The stream every provider's events are stored in. */
export const WEBHOOKS_STREAM_NAME: string = STREAMS.webhooks;

/**
 * Creates stream `WEBHOOKS` if the gateway never ran (so the worker may start first), and gives every provider with
 * a handler its own durable pull consumer on it (`webhooks.<provider>.>`),
 * shared by every replica, and runs each message through the inbox: record, claim with a lease, the handlers,
 * `processedAt`, ack; on failure the inbox records it and the message is naked with the retry policy's delay.
 */
export class JetStreamWebhookDriver implements WebhookDriver {
  private runners: ConsumerRunner[] = [];
  private started = false;
  private readonly inbox: Inbox;

  constructor(private readonly options: WebhooksModuleOptions & { messaging: Messaging; owner: string; clock: Clock }) {
    this.inbox = inboxCollections(options.db);
  }

  async start(registry: WebhookRegistry): Promise<void> {
    const { messaging, logger, logContext, owner, clock } = this.options;
    const retryPolicy = this.options.retryPolicy ?? WEBHOOK_RETRY_POLICY;
    if (registry.providers().length > 0)
      await ensureWebhooksStreamExists(messaging.jsm, { replicas: this.options.streamReplicas ?? 1 });
    for (const provider of registry.providers()) {
      const settings = consumerSettingsOf(this.options, provider);
      await ensureConsumer(messaging.jsm, {
        stream: WEBHOOKS_STREAM_NAME,
        durable: settings.consumer,
        filterSubjects: [providerFilterSubject(provider)],
        ackWaitMs: settings.ackWaitMs,
        maxAckPending: settings.maxAckPending,
        description: `Berth webhook handlers of ${provider}`,
      });
      this.runners.push(
        await startConsumer({
          js: messaging.js,
          stream: WEBHOOKS_STREAM_NAME,
          consumer: settings.consumer,
          concurrency: settings.concurrency,
          ackWaitMs: settings.ackWaitMs,
          retryPolicy,
          logger,
          logContext,
          contextFor: webhookLogContext,
          weightOf: webhookMessageWeight,
          onOutcome: settings.onOutcome,
          onGiveUp: settings.onGiveUp,
          handler: async (message) => {
            await handleWebhookMessage({
              inbox: this.inbox,
              message,
              owner,
              leaseMs: this.options.leaseMs ?? 30_000,
              clock,
              logger,
              retryPolicy,
              logContext,
              batchConcurrency: settings.concurrency,
              handler: (event) => dispatchWebhook(registry, event, logger),
            });
          },
        }),
      );
      logger.info(
        {
          provider,
          consumer: settings.consumer,
          handlers: registry.handlersOf(provider).map((handler) => handler.name),
        },
        `Consuming ${provider} webhooks (${settings.consumer})`,
      );
    }
    this.started = true;
  }

  /** True once started and while every provider's consumer runner is healthy (see `ConsumerRunner.healthy`). */
  healthy(): boolean {
    return this.started && this.runners.every((runner) => runner.healthy);
  }

  async stop(graceMs: number): Promise<void> {
    this.started = false;
    const runners = this.runners;
    this.runners = [];
    await Promise.all(runners.map((runner) => runner.stop(graceMs)));
  }
}
