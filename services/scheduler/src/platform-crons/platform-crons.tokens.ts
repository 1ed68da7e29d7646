/**
 * The queue of the platform crons. Not `cron-queue`: every worker of a queue shares its durable consumer
 * (`jobs-<queue>`), and a worker dead-letters a job it does not run, so if the scheduler's replicas pulled from
 * `cron-queue` they would take (and dead-letter) the ticks of app-worker's crons, and app-worker theirs.
 */
export const PLATFORM_CRON_QUEUE = 'platform-cron-queue';

/** The owner of the platform crons' schedules: only a start of the scheduler changes or removes them. */
export const PLATFORM_CRON_OWNER = 'scheduler';

/** Injection token of the {@link WebhookInboxOperations} the platform crons call. */
export const WEBHOOK_INBOX_OPERATIONS = 'BerthWebhookInboxOperations';

/** Injection token of the scheduler's logger in the platform crons' module. */
export const PLATFORM_CRONS_LOGGER = 'BerthPlatformCronsLogger';

/**
 * What the platform crons do to the webhook inbox (`@berth/inbox`), bound to the scheduler's MongoDB, NATS, clock
 * and settings in `inbox-operations.ts`; tests pass their own.
 */
export interface WebhookInboxOperations {
  /** Requeues unprocessed events with no live message; sets aside (and alerts on) events past the attempt limit. */
  recoverWebhookEvents(): Promise<Record<string, unknown>>;
  /** Deletes processed events past the retention period; never an unprocessed one. */
  deleteExpiredWebhookEvents(): Promise<Record<string, unknown>>;
}
