import type { Db } from 'mongodb';
import {
  createWebhookAlertHook,
  deleteExpiredWebhookEvents,
  ensureInboxIndexes,
  inboxCollections,
  recoverWebhookEvents,
  type WebhookSetAsideMetric,
} from '@berth/inbox';
import type { BerthLogger } from '@berth/logger';
import type { Messaging } from '@berth/messaging';
import type { WebhookInboxOperations } from './platform-crons.tokens';

/** What {@link createInboxOperations} binds the inbox operations to. */
export interface InboxOperationsOptions {
  db: Db;
  messaging: Pick<Messaging, 'js'>;
  logger: BerthLogger;
  /** `WEBHOOK_EVENT_RETENTION_DAYS`. */
  retentionDays: number;
  /** `ALERT_WEBHOOK_URL`: where an event set aside is announced, besides the error log line and the metric. */
  alertWebhookUrl?: string;
  /** Counted once per event set aside (`webhook_events_set_aside_total{provider}`). */
  setAsideMetric?: WebhookSetAsideMetric;
}

/**
 * The `@berth/inbox` operations the platform crons run, bound to the scheduler's MongoDB, NATS and settings. The
 * inbox's indexes (the retention deletes by `{processedAt, receivedAt}`) are made sure of before the first run, not
 * at start: the scheduler starts and emits ticks while MongoDB is down.
 */
export function createInboxOperations(options: InboxOperationsOptions): WebhookInboxOperations {
  const inbox = inboxCollections(options.db);
  const { logger } = options;
  const alert = options.alertWebhookUrl ? createWebhookAlertHook({ url: options.alertWebhookUrl, logger }) : undefined;
  let indexes: Promise<void> | undefined;
  const ready = (): Promise<void> => {
    if (!indexes) {
      indexes = ensureInboxIndexes({ inbox });
      indexes.catch(() => (indexes = undefined));
    }
    return indexes;
  };
  return {
    async recoverWebhookEvents() {
      await ready();
      return {
        ...(await recoverWebhookEvents({
          inbox,
          messaging: options.messaging,
          logger,
          alert,
          metric: options.setAsideMetric,
        })),
      };
    },
    async deleteExpiredWebhookEvents() {
      await ready();
      return { ...(await deleteExpiredWebhookEvents({ inbox, retentionDays: options.retentionDays, logger })) };
    },
  };
}
