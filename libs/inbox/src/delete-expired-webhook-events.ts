import type { Filter } from 'mongodb';
import type { BerthLogger } from '@berth/logger';
import { systemClock, type Clock } from '@berth/contract';
import type { Inbox, InboxEventDocument } from './types';

const DAY_MS = 24 * 60 * 60 * 1000;

/** `WEBHOOK_EVENT_RETENTION_DAYS` when unset. */
export const DEFAULT_WEBHOOK_EVENT_RETENTION_DAYS = 30;

/** The index the retention reads through (and hints, so MongoDB never picks another plan). */
export const RETENTION_INDEX = 'processedAt_receivedAt';

/** Options for {@link deleteExpiredWebhookEvents}. */
export interface DeleteExpiredWebhookEventsOptions {
  inbox: Inbox;
  /** Defaults to the system clock. */
  clock?: Clock;
  /** Processed events older than this many days (by `processedAt`) are deleted. Default 30. */
  retentionDays?: number;
  /**
   * Events deleted per `deleteMany` at most (default 20,000). Bounds each delete's work, so one run never holds
   * the store in one long statement.
   */
  batchSize?: number;
  logger?: BerthLogger;
}

/** What {@link deleteExpiredWebhookEvents} did. */
export interface DeleteExpiredWebhookEventsResult {
  /** Processed events deleted. */
  deleted: number;
  /** Events processed before this were deleted. */
  cutoff: Date;
  /** `deleteMany` calls made. */
  batches: number;
  /** Alert records of `inboxAlerts` raised before the cutoff, deleted. */
  alertsDeleted: number;
}

/** The events the retention deletes: processed before the cutoff. `$lt` on a date never matches null or a missing field. */
export function expiredEventsFilter(cutoff: Date): Filter<InboxEventDocument> {
  return { processedAt: { $lt: cutoff } };
}

/**
 * The retention cron's work (03:30 UTC daily), callable on demand: deletes the processed events whose
 * `processedAt` is more than `retentionDays` days old. An unprocessed event (set aside or not) has `processedAt:
 * null` and is never deleted. Also deletes the alert records older than the cutoff (they hold event ids and
 * last errors).
 *
 * In windows of `processedAt`, read through the `{processedAt, receivedAt}` index: one pass over the expired
 * events' `processedAt` in index order (covered by the index on MongoDB) keeps every `batchSize`-th value as a
 * window bound, then one `deleteMany({ processedAt: { $gte: from, $lt: to } })` per window. `processedAt` is never
 * changed once set, so a window holds what the pass counted. Each query hints the index. Running it again deletes
 * nothing more.
 */
export async function deleteExpiredWebhookEvents(
  options: DeleteExpiredWebhookEventsOptions,
): Promise<DeleteExpiredWebhookEventsResult> {
  const { inbox } = options;
  const clock = options.clock ?? systemClock;
  const retentionDays = options.retentionDays ?? DEFAULT_WEBHOOK_EVENT_RETENTION_DAYS;
  const batchSize = Math.max(1, options.batchSize ?? 20_000);
  const cutoff = new Date(clock.now().getTime() - retentionDays * DAY_MS);

  const bounds: Date[] = [];
  let seen = 0;
  const pass = inbox.events
    .find(expiredEventsFilter(cutoff), { projection: { _id: 0, processedAt: 1 }, hint: RETENTION_INDEX })
    .sort({ processedAt: 1 })
    .batchSize(5000);
  for await (const { processedAt } of pass) {
    if (
      seen > 0 &&
      seen % batchSize === 0 &&
      processedAt &&
      processedAt.getTime() > (bounds.at(-1)?.getTime() ?? -Infinity)
    )
      bounds.push(processedAt);
    seen += 1;
  }

  let deleted = 0;
  let batches = 0;
  if (seen > 0) {
    const edges: (Date | undefined)[] = [undefined, ...bounds];
    for (let index = 0; index < edges.length; index++) {
      const from = edges[index];
      const to = edges[index + 1] ?? cutoff;
      const { deletedCount } = await inbox.events.deleteMany(
        { processedAt: { ...(from ? { $gte: from } : {}), $lt: to } },
        { hint: RETENTION_INDEX },
      );
      deleted += deletedCount;
      batches += 1;
    }
  }
  const alerts = await inbox.alerts.deleteMany({ raisedAt: { $lt: cutoff } });
  const result = { deleted, cutoff, batches, alertsDeleted: alerts.deletedCount };
  options.logger?.info(
    { ...result, retentionDays },
    `Deleted ${deleted} processed webhook event(s) older than ${retentionDays} day(s)`,
  );
  return result;
}
