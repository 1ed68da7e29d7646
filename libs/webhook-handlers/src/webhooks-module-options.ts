import type { Db } from 'mongodb';
import type { Clock } from '@berth/contract';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import type { GiveUpReason, Messaging, ReceivedMessage, RetryPolicy } from '@berth/messaging';

/** How webhook handlers run: `jetstream` in every deployment; `sync` runs them inside the delivery (integration tests). */
export type WebhookDriverName = 'jetstream' | 'sync';

/** Settings of one provider's durable consumer. */
export interface WebhookConsumerSettings {
  /** The durable consumer's name on `WEBHOOKS` (default `webhooks-<provider>`). */
  consumer?: string;
  /** Messages one process handles at once (default 16); also the events of one batch message run at once. */
  concurrency?: number;
  /** How long a delivery may go without a heartbeat before JetStream delivers it again (default 30 s). */
  ackWaitMs?: number;
  /** Most messages handed out and not yet acked, across every replica (default 1000). */
  maxAckPending?: number;
  /** Called after each message is settled (metrics; tests wait on it). */
  onOutcome?: (message: ReceivedMessage, outcome: 'acked' | 'retried' | 'terminated', durationMs: number) => void;
  /** Called before a message is given up on. */
  onGiveUp?: (message: ReceivedMessage, error: unknown, reason: GiveUpReason) => Promise<void>;
}

/** Options of `WebhooksModule.forRoot`. */
export interface WebhooksModuleOptions {
  driver: WebhookDriverName;
  /** The database holding the inbox (`webhookEvents`, its leases and alerts). */
  db: Db;
  logger: BerthLogger;
  /** Gives every line written while an event is handled its provider, event id, type and attempt. */
  logContext?: LogContextStore;
  /** Required by the `jetstream` driver. */
  messaging?: Messaging;
  /** Defaults to the system clock. */
  clock?: Clock;
  /**
   * Retries of a failing event: `WEBHOOK_RETRY_POLICY` by default (11 attempts over about 85 minutes a round; the
   * recovery cron starts the next rounds and sets the event aside after 33). The sync driver retries at once, up to
   * `maxAttempts`.
   */
  retryPolicy?: RetryPolicy;
  /** How long an attempt's claim holds; renewed every third of it while the handler runs (default 30 s). */
  leaseMs?: number;
  /** This replica's id, the owner of its claims; defaults to `<hostname>:<pid>:<random>`. */
  owner?: string;
  /** Settings per provider, by provider name. */
  providers?: Readonly<Record<string, WebhookConsumerSettings>>;
  /** Settings of every provider not named in `providers`. */
  defaults?: WebhookConsumerSettings;
  /** Replicas of stream `WEBHOOKS` when this worker creates it (the gateway has not run yet): `STREAM_REPLICAS`, 1 by default. */
  streamReplicas?: number;
  /** How long a stop waits for running handlers (SIGTERM grace, default 25 s). */
  shutdownGraceMs?: number;
  /**
   * Providers this application must handle: start-up fails if one has no `@WebhookProcessor` among the imported
   * modules (a module left out of the root module would otherwise leave its events to wait unhandled).
   */
  requiredProviders?: readonly string[];
}

/** The injection token of the module's options. */
export const WEBHOOKS_MODULE_OPTIONS = Symbol('WEBHOOKS_MODULE_OPTIONS');
/** The injection token of the module's driver. */
export const WEBHOOK_DRIVER = Symbol('WEBHOOK_DRIVER');
