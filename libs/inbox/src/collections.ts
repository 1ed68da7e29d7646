import type { Db } from 'mongodb';
import { BatchedInserter, BatchedUpdater } from '@berth/store';
import type { Inbox, InboxAlertDocument, InboxEventDocument } from './types';

/** The inbox collection. */
export const WEBHOOK_EVENTS_COLLECTION = 'webhookEvents';

/** The alerts raised for events set aside, one per set-aside. */
export const WEBHOOK_EVENT_ALERTS_COLLECTION = 'inboxAlerts';

/** The inbox collections of a database, and the group commit of their hot path's writes. */
export function inboxCollections(db: Db): Inbox {
  const events = db.collection<InboxEventDocument>(WEBHOOK_EVENTS_COLLECTION);
  return {
    events,
    alerts: db.collection<InboxAlertDocument>(WEBHOOK_EVENT_ALERTS_COLLECTION),
    eventWrites: { inserts: new BatchedInserter(events), updates: new BatchedUpdater(events) },
  };
}

/** The inbox `_id` of an event: `<provider>:<eventId>`, the same as its JetStream `Nats-Msg-Id`. */
export function inboxEventKey(provider: string, eventId: string): string {
  return `${provider}:${eventId}`;
}
