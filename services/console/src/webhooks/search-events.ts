import type { Filter } from 'mongodb';
import { inboxEventKey, type Inbox, type InboxEventDocument } from '@berth/inbox';

/**
 * The states the console searches by. The inbox has three (unprocessed, set aside, processed); the console splits
 * unprocessed into `pending` (no attempt yet) and `retrying` (at least one attempt, none succeeded), which is what
 * an on-call engineer asks first.
 */
export const CONSOLE_EVENT_STATES = ['pending', 'retrying', 'set-aside', 'processed'] as const;
export type ConsoleEventState = (typeof CONSOLE_EVENT_STATES)[number];

/** The filter of each state, over the inbox fields `processedAt`, `abandonedAt`, `attempts`. */
const STATE_FILTERS: Record<ConsoleEventState, Filter<InboxEventDocument>> = {
  pending: { processedAt: null, abandonedAt: null, attempts: 0 },
  retrying: { processedAt: null, abandonedAt: null, attempts: { $gt: 0 } },
  'set-aside': { processedAt: null, abandonedAt: { $ne: null } },
  processed: { processedAt: { $ne: null } },
};

/** The state of one inbox row. */
export function stateOf(row: Pick<InboxEventDocument, 'processedAt' | 'abandonedAt' | 'attempts'>): ConsoleEventState {
  if (row.processedAt) return 'processed';
  if (row.abandonedAt) return 'set-aside';
  return row.attempts > 0 ? 'retrying' : 'pending';
}

/** A search of the inbox. */
export interface EventSearch {
  provider?: string;
  type?: string;
  state?: ConsoleEventState;
  eventId?: string;
  from?: Date;
  to?: Date;
  limit?: number;
}

/** One event as the list shows it: never its payload. */
export interface EventRow {
  provider: string;
  eventId: string;
  type: string;
  state: ConsoleEventState;
  receivedAt: Date;
  attempts: number;
  lastError: string | null;
  lastAttemptAt: Date | null;
  processedAt: Date | null;
  abandonedAt: Date | null;
  /** When the live message's next delivery is due (null once its round ended, or when it is done). */
  nextAttemptAt: Date | null;
  /** When the last attempt of its round failed: the recovery cron starts the next round. */
  roundEndedAt: Date | null;
}

/**
 * Searches the inbox, newest first, without payloads. With a provider and an event id the lookup is by `_id`; any
 * other search is capped at `limit` rows (at most 500).
 */
export async function searchEvents(inbox: Inbox, search: EventSearch): Promise<{ events: EventRow[]; total: number }> {
  const filter: Filter<InboxEventDocument> =
    search.provider && search.eventId
      ? { _id: inboxEventKey(search.provider, search.eventId) }
      : {
          ...(search.provider ? { provider: search.provider } : {}),
          ...(search.eventId ? { eventId: search.eventId } : {}),
        };
  const and: Filter<InboxEventDocument>[] = [filter];
  if (search.type) and.push({ type: search.type });
  if (search.state) and.push(STATE_FILTERS[search.state]);
  if (search.from || search.to)
    and.push({
      receivedAt: { ...(search.from ? { $gte: search.from } : {}), ...(search.to ? { $lte: search.to } : {}) },
    });
  const query: Filter<InboxEventDocument> = and.length === 1 ? filter : { $and: and };
  const limit = Math.min(Math.max(search.limit ?? 100, 1), 500);
  const [rows, total] = await Promise.all([
    inbox.events
      .find(query, { projection: { payload: 0 } })
      .sort({ receivedAt: -1 })
      .limit(limit)
      .toArray(),
    inbox.events.countDocuments(query),
  ]);
  return {
    total,
    events: rows.map(eventRow),
  };
}

/** What the list shows of an inbox row (the event page shows this and more). */
export function eventRow(row: InboxEventDocument): EventRow {
  return {
    provider: row.provider,
    eventId: row.eventId,
    type: row.type,
    state: stateOf(row),
    receivedAt: row.receivedAt,
    attempts: row.attempts,
    lastError: row.lastError,
    lastAttemptAt: row.lastAttemptAt,
    processedAt: row.processedAt,
    abandonedAt: row.abandonedAt,
    nextAttemptAt: row.processedAt || row.abandonedAt ? null : (row.nextAttemptAt ?? null),
    roundEndedAt: row.processedAt || row.abandonedAt ? null : (row.roundEndedAt ?? null),
  };
}
