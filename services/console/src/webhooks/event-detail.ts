import {
  inboxEventKey,
  readWebhookAttemptLog,
  type AttemptLogEntry,
  type InboxAlertDocument,
  type InboxAttemptError,
} from '@berth/inbox';
import type { ConsoleDependencies } from '../dependencies';
import { findStoredMessage, type StoredMessage } from './find-stored-message';
import { maskPayload, prettyPayload } from './mask-payload';
import { retryScheduleOf, type RetrySchedule } from './retry-schedule';
import { eventRow, type EventRow } from './search-events';

/** Everything the event page shows. */
export interface EventDetail extends EventRow {
  /** Every failed attempt the row kept (the last 33), oldest first: number, time, error. */
  attemptErrors: InboxAttemptError[];
  /** The provider's request headers kept with the event (its signed and identifying ones), `{}` on older rows. */
  providerHeaders: Record<string, string>;
  nextAttemptAt: Date | null;
  requeueCount: number;
  reopenedAt: Date | null;
  payload: string;
  payloadMasked: boolean;
  /** Each attempt and how it ended (`webhookAttemptLog`, which the CLI's `webhooks show` prints too). */
  attemptLog: AttemptLogEntry[];
  /** When it was processed before being sent again (`resendProcessedWebhookEvent`), oldest first. */
  processedBefore: Date[];
  /** Where it stands in the retry schedule and the attempts ahead, in words. */
  schedule: RetrySchedule;
  alerts: InboxAlertDocument[];
  message: StoredMessage | null;
  traceUrl: string | null;
}

/**
 * An event with its payload (masked unless `reveal`), its lease log (each attempt: who, when, how it ended), its
 * alerts, the JetStream message it arrived in with its headers, and its trace. Every read is by `_id`.
 */
export async function eventDetail(
  dependencies: ConsoleDependencies,
  provider: string,
  eventId: string,
  reveal: boolean,
): Promise<EventDetail | null> {
  const key = inboxEventKey(provider, eventId);
  const read = await readWebhookAttemptLog({
    inbox: dependencies.inbox,
    provider,
    eventId,
    clock: dependencies.clock,
  });
  if (!read) return null;
  const { row, attemptLog } = read;
  const [alerts, message] = await Promise.all([
    Promise.all(
      Array.from({ length: row.setAsideCount ?? 0 }, (_, index) =>
        dependencies.inbox.alerts.findOne({ _id: `${key}#${index + 1}` }),
      ),
    ),
    findStoredMessage(dependencies.messaging.js, row).catch((error: unknown) => {
      dependencies.logger.warn({ err: error, key }, 'Could not look the event up in WEBHOOKS');
      return null;
    }),
  ]);
  const attemptErrors = row.attemptErrors ?? [];
  return {
    ...eventRow(row),
    attemptErrors,
    providerHeaders: row.headers ?? {},
    nextAttemptAt: row.nextAttemptAt ?? null,
    requeueCount: row.requeueCount ?? 0,
    reopenedAt: row.reopenedAt ?? null,
    payload: reveal ? prettyPayload(row.payload) : maskPayload(row.payload),
    payloadMasked: !reveal,
    attemptLog,
    processedBefore: (row.processedBefore ?? []).map((success) => success.at),
    schedule: retryScheduleOf(row),
    alerts: alerts.filter((alert): alert is InboxAlertDocument => alert !== null),
    message,
    traceUrl:
      message?.traceId && dependencies.jaegerUiUrl
        ? `${dependencies.jaegerUiUrl.replace(/\/$/, '')}/trace/${message.traceId}`
        : null,
  };
}
