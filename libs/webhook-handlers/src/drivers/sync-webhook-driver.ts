import {
  applyInboxEvent,
  inboxCollections,
  reopenResentWebhookEvent,
  type Inbox,
  type ProcessInboxEventResult,
  type WebhookEvent,
} from '@berth/inbox';
import type { Clock } from '@berth/contract';
import { decideRetry, failureOf, WEBHOOK_RETRY_POLICY } from '@berth/messaging';
import type { WebhookRegistry } from '../discovery/webhook-registry';
import { dispatchWebhook } from '../dispatch-webhook';
import type { WebhooksModuleOptions } from '../webhooks-module-options';
import type { WebhookDriver } from './webhook-driver';

/** One verified event to deliver in-process, as the gateway would store it. */
export interface WebhookDeliveryInput {
  provider: string;
  /** The provider's event id. */
  id: string;
  type: string;
  /** The body: a JSON value, or the raw JSON text exactly as a provider would send it. */
  body: unknown;
  /** When the gateway received it; now by default. */
  receivedAt?: Date;
  /** The provider's kept request headers (lower-case names), as the gateway stores them; none by default. */
  headers?: Record<string, string>;
}

/** The shape of the gateway's `WebhookPublisher`, so a gateway app built in a test can run handlers in its request. */
export interface InProcessWebhookPublisher {
  publish(event: {
    provider: string;
    eventId: string;
    type: string;
    receivedAt: string;
    data: Uint8Array;
    headers?: Readonly<Record<string, string>>;
  }): Promise<'stored' | 'duplicate'>;
  isReady(): Promise<boolean>;
  close(): void;
}

/**
 * The `sync` driver: no NATS. `deliver` runs the event through the same inbox steps as the consumers (record,
 * claim, handlers, `processedAt`) inside the call and resolves when it is done, so its effects are there when the
 * call returns. A failing handler is retried at once, up to the retry policy's `maxAttempts`; when it fails for
 * good (or throws `UnrecoverableError`, which sets the event aside) `deliver` rejects with its last error, and the
 * inbox row records it as on JetStream.
 */
export class SyncWebhookDriver implements WebhookDriver {
  private registry: WebhookRegistry | undefined;
  private readonly inbox: Inbox;

  constructor(private readonly options: WebhooksModuleOptions & { owner: string; clock: Clock }) {
    this.inbox = inboxCollections(options.db);
  }

  async start(registry: WebhookRegistry): Promise<void> {
    this.registry = registry;
  }

  /** Always: it runs handlers inside the caller, with nothing to lose. */
  healthy(): boolean {
    return true;
  }

  async stop(): Promise<void> {
    this.registry = undefined;
  }

  /** Delivers one event now; see the class. */
  async deliver(input: WebhookDeliveryInput): Promise<ProcessInboxEventResult> {
    const registry = this.registry;
    if (!registry)
      throw new Error('WebhooksModule (sync driver): the application is not initialised (call app.init())');
    const payload = typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
    const headers =
      input.headers && Object.keys(input.headers).length > 0 ? { headers: lowerCased(input.headers) } : {};
    const event: WebhookEvent = {
      provider: input.provider,
      eventId: input.id,
      type: input.type,
      receivedAt: input.receivedAt ?? this.options.clock.now(),
      payload,
      ...headers,
    };
    const first = await this.run(registry, event);
    if (first !== 'abandoned') return first;
    const reopened = await reopenResentWebhookEvent({
      inbox: this.inbox,
      provider: event.provider,
      eventId: event.eventId,
      receivedAt: event.receivedAt,
      clock: this.options.clock,
    });
    return reopened === 'reopened' ? this.run(registry, event) : first;
  }

  /** This driver as the gateway's publisher: each published event is delivered inside the request. */
  asPublisher(): InProcessWebhookPublisher {
    return {
      publish: async (event) => {
        const outcome = await this.deliver({
          provider: event.provider,
          id: event.eventId,
          type: event.type,
          body: Buffer.from(event.data).toString('utf8'),
          receivedAt: new Date(event.receivedAt),
          headers: event.headers,
        });
        return outcome === 'already_processed' ? 'duplicate' : 'stored';
      },
      isReady: async () => this.registry !== undefined,
      close: () => undefined,
    };
  }

  private async run(registry: WebhookRegistry, event: WebhookEvent): Promise<ProcessInboxEventResult> {
    const { logger, clock, owner } = this.options;
    const retryPolicy = this.options.retryPolicy ?? WEBHOOK_RETRY_POLICY;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await applyInboxEvent({
          inbox: this.inbox,
          event,
          deliveryCount: attempt,
          owner,
          leaseMs: this.options.leaseMs ?? 30_000,
          clock,
          logger,
          retryPolicy,
          handler: (inboxEvent) => dispatchWebhook(registry, inboxEvent, logger),
        });
      } catch (error) {
        // The handler's own error, not the inbox's retry wrapper around it.
        if (decideRetry(retryPolicy, { attempt, error }).kind === 'give-up') throw failureOf(error);
      }
    }
  }
}

function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
