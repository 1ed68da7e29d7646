import type { Db } from 'mongodb';
import type { Inbox, InboxAlertDocument, InboxEventDocument } from './types';

/** The inbox collection. */
export const WEBHOOK_EVENTS_COLLECTION = 'webhookEvents';

/** The alerts raised for events set aside, one per set-aside. */
export const WEBHOOK_EVENT_ALERTS_COLLECTION = 'inboxAlerts';

/** The inbox collections of a database. */
export function inboxCollections(db: Db): Inbox {
  return {
    events: db.collection<InboxEventDocument>(WEBHOOK_EVENTS_COLLECTION),
    alerts: db.collection<InboxAlertDocument>(WEBHOOK_EVENT_ALERTS_COLLECTION),
  };
}

/** The inbox `_id` of an event: `<provider>:<eventId>`, the same as its JetStream `Nats-Msg-Id`. */
export function inboxEventKey(provider: string, eventId: string): string {
  return `${provider}:${eventId}`;
}
