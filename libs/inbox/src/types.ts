import type { Collection } from 'mongodb';
import type { LeaseDocument } from './leases/lease-types';

/** The current time. Every operation takes one, so tests can control it. */
export type Clock = () => Date;

/** The system clock. */
export const systemClock: Clock = () => new Date();

/**
 * One provider event in the inbox (collection `webhookEvents`). Written at first delivery and never duplicated:
 * `_id` is `<provider>:<eventId>`, and `{provider, eventId}` is also a unique index.
 */
export interface InboxEventDocument {
  /** `<provider>:<eventId>`, the same string as the JetStream `Nats-Msg-Id`. */
  _id: string;
  /** `stripe`, `clerk`, … */
  provider: string;
  /** The provider's event id (Stripe `evt_…`, Clerk/Svix `msg_…`). */
  eventId: string;
  /** The provider's event type (`customer.subscription.updated`, `user.updated`). */
  type: string;
  /** When the gateway received it (`Berth-Received-At`). */
  receivedAt: Date;
  /**
   * The provider's raw JSON body, as text. Kept as a string, not a document: provider payloads may hold keys with
   * `.` or `$` (metadata), which FerretDB refuses, and the text is exactly what was verified.
   */
  payload: string;
  /** Attempts started (claims), counted before the handler runs. */
  attempts: number;
  /** The last failure (`Name: message`), kept after a later success as history. */
  lastError: string | null;
  /** When the last attempt started. */
  lastAttemptAt: Date | null;
  /** Set once the handler succeeded; the event is then skipped forever. */
  processedAt: Date | null;
  /** Set when the event is set aside (unrecoverable, or too many attempts); no consumer runs it then. */
  abandonedAt: Date | null;
  /** Who holds the current attempt's lease (a replica id), mirrored from the lease collection. */
  leaseOwner: string | null;
  /** Until when that lease holds, mirrored from the lease collection. */
  leaseUntil: Date | null;
  /** The generation of the last lease taken on this event: where the next claim starts looking (by `_id`). */
  leaseGeneration?: number;
}

/** A verified provider event, as the gateway published it. */
export interface WebhookEvent {
  provider: string;
  eventId: string;
  type: string;
  receivedAt: Date;
  /** The raw JSON body. */
  payload: string;
}

/** The two collections of the inbox: the events, and the attempt leases that make a claim atomic. */
export interface Inbox {
  readonly events: Collection<InboxEventDocument>;
  /** One document per attempt (`<eventKey>#<n>`); see {@link acquireLease} for why claims are inserts. */
  readonly leases: Collection<LeaseDocument>;
}
