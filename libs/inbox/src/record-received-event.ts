import { inboxEventKey } from './collections';
import { isDuplicateKeyError } from '@berth/store';
import type { Inbox, InboxEventDocument, WebhookEvent } from './types';

/** Options for {@link recordReceivedEvent}. */
export interface RecordReceivedEventOptions {
  inbox: Inbox;
  event: WebhookEvent;
}

/**
 * Writes the event to the inbox if it is not there yet: a second delivery of the same event creates no second row
 * and changes nothing. Resolves `true` when this call created the row.
 *
 * Insert-if-absent is done as an `insertOne` whose duplicate key error (on `_id`) means
 * "already recorded". A consumer's claim records the event itself (`claimEvent` with the event); this is for
 * callers that store an event without claiming it.
 */
export async function recordReceivedEvent(options: RecordReceivedEventOptions): Promise<boolean> {
  try {
    await options.inbox.events.insertOne(newInboxRow(options.event));
    return true;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}

/** The inbox row of an event not attempted yet: every field present (the crons filter on null). */
export function newInboxRow(event: WebhookEvent): InboxEventDocument {
  return {
    _id: inboxEventKey(event.provider, event.eventId),
    provider: event.provider,
    eventId: event.eventId,
    type: event.type,
    receivedAt: event.receivedAt,
    payload: event.payload,
    attempts: 0,
    lastError: null,
    lastAttemptAt: null,
    processedAt: null,
    abandonedAt: null,
    leaseOwner: null,
    leaseUntil: null,
    ...(event.subject ? { subject: event.subject } : {}),
    ...(event.headers ? { headers: event.headers } : {}),
    nextAttemptAt: null,
    roundEndedAt: null,
    requeuedAt: null,
    requeueCount: 0,
    setAsideCount: 0,
    alertedAt: null,
    reopenedAt: null,
  };
}
