import type { Db } from 'mongodb';
import { BatchedInserter } from './store/batched-inserter';
import type { LeaseDocument } from './leases/lease-types';
import type { Inbox, InboxAlertDocument, InboxEventDocument } from './types';

/** The inbox collection. */
export const WEBHOOK_EVENTS_COLLECTION = 'webhookEvents';

/** The attempt leases of inbox events. */
export const WEBHOOK_EVENT_LEASES_COLLECTION = 'webhookEventLeases';

/** The alerts raised for events set aside, one per set-aside. */
export const WEBHOOK_EVENT_ALERTS_COLLECTION = 'inboxAlerts';

/** The inbox collections of a database. */
export function inboxCollections(db: Db): Inbox {
  const events = db.collection<InboxEventDocument>(WEBHOOK_EVENTS_COLLECTION);
  const leases = db.collection<LeaseDocument>(WEBHOOK_EVENT_LEASES_COLLECTION);
  return {
    events,
    leases,
    alerts: db.collection<InboxAlertDocument>(WEBHOOK_EVENT_ALERTS_COLLECTION),
    rowInserts: new BatchedInserter(events),
    leaseInserts: new BatchedInserter(leases),
  };
}

/** The inbox `_id` of an event: `<provider>:<eventId>`, the same as its JetStream `Nats-Msg-Id`. */
export function inboxEventKey(provider: string, eventId: string): string {
  return `${provider}:${eventId}`;
}
