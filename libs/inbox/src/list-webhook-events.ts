import type { Filter, Sort } from 'mongodb';
import type { Inbox, InboxEventDocument } from './types';

/**
 * The states an operator lists events by:
 * - `unprocessed`: not processed and not set aside (waiting for an attempt, retrying, or to be recovered);
 * - `abandoned`: set aside (not processed, `abandonedAt` set): waits for `retry-abandoned`;
 * - `processed`: done (kept until the retention deletes it).
 */
export type WebhookEventState = 'unprocessed' | 'abandoned' | 'processed';

/** The states, for validation. */
export const WEBHOOK_EVENT_STATES: readonly WebhookEventState[] = ['unprocessed', 'abandoned', 'processed'];

/** Options for {@link listWebhookEvents}. */
export interface ListWebhookEventsOptions {
  inbox: Inbox;
  state: WebhookEventState;
  provider?: string;
  /** Rows returned at most (default 50). */
  limit?: number;
}

/** One event as listed: its state and history, never its payload (which holds personal data). */
export interface WebhookEventSummary {
  provider: string;
  eventId: string;
  type: string;
  receivedAt: Date;
  attempts: number;
  lastError: string | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  roundEndedAt: Date | null;
  requeueCount: number;
  processedAt: Date | null;
  abandonedAt: Date | null;
}

/** What {@link listWebhookEvents} found. */
export interface ListWebhookEventsResult {
  events: WebhookEventSummary[];
  /** Events in that state (and of that provider) in all, however many were listed. */
  total: number;
}

const QUERIES: Record<WebhookEventState, { filter: Filter<InboxEventDocument>; sort: Sort }> = {
  /** Oldest first: the most overdue on top. Index `{processedAt, receivedAt}`. */
  unprocessed: { filter: { processedAt: null, abandonedAt: null }, sort: { receivedAt: 1 } },
  /** Oldest first. Index `{abandonedAt}`. */
  abandoned: { filter: { abandonedAt: { $ne: null }, processedAt: null }, sort: { receivedAt: 1 } },
  /** Latest first. Index `{processedAt, receivedAt}`. */
  processed: { filter: { processedAt: { $ne: null } }, sort: { processedAt: -1 } },
};

/** Lists inbox events in one state, for `berth webhooks list`: read-only, payloads left out. */
export async function listWebhookEvents(options: ListWebhookEventsOptions): Promise<ListWebhookEventsResult> {
  const query = QUERIES[options.state];
  if (!query)
    throw new Error(
      `Unknown webhook event state ${JSON.stringify(options.state)} (one of ${WEBHOOK_EVENT_STATES.join(', ')})`,
    );
  const filter: Filter<InboxEventDocument> = {
    ...query.filter,
    ...(options.provider ? { provider: options.provider } : {}),
  };
  const [rows, total] = await Promise.all([
    options.inbox.events
      .find(filter, { projection: { payload: 0 } })
      .sort(query.sort)
      .limit(Math.max(1, options.limit ?? 50))
      .toArray(),
    options.inbox.events.countDocuments(filter),
  ]);
  return {
    total,
    events: rows.map((row) => ({
      provider: row.provider,
      eventId: row.eventId,
      type: row.type,
      receivedAt: row.receivedAt,
      attempts: row.attempts,
      lastError: row.lastError,
      lastAttemptAt: row.lastAttemptAt,
      nextAttemptAt: row.nextAttemptAt ?? null,
      roundEndedAt: row.roundEndedAt ?? null,
      requeueCount: row.requeueCount ?? 0,
      processedAt: row.processedAt,
      abandonedAt: row.abandonedAt,
    })),
  };
}
