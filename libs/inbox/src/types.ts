import type { Collection } from 'mongodb';
import type { Lease, LeaseDocument } from './leases/lease-types';
import type { BatchedInserter } from './store/batched-inserter';

/** The current time (`@berth/contract`'s): every operation takes one, so tests can control it. */
export { systemClock, type Clock } from '@berth/contract';

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
  /**
   * Who holds the current attempt's lease (a replica id), mirrored from the lease collection; on rows of earlier
   * versions whose first attempt had not renewed, the lease itself (see `rowLeaseOf`).
   */
  leaseOwner: string | null;
  /** Until when that lease holds, mirrored from the lease collection (or the lease itself, as above). */
  leaseUntil: Date | null;
  /** The generation of the last lease taken on this event: where the next claim starts looking (by `_id`). */
  leaseGeneration?: number;
  /**
   * Who claimed the first attempt and when, written with the row: what the console's attempt log shows for that
   * attempt where its lease document is gone (or, on rows of earlier versions, never was). Absent on rows recorded
   * before they were claimed.
   */
  firstAttempt?: { owner: string; at: Date };
  /**
   * The subject the event's message arrived on (`webhooks.<provider>.<type tokens>`), where a requeue publishes it
   * again. Absent on rows written before it was kept: the subject is then rebuilt from provider and type.
   */
  subject?: string;

  // Retry state: what the recovery cron reads to tell "a message is still waiting or retrying" from "no live
  // message" (see `round-state.ts`). Written under the event's lease, like every other field. Optional: rows written
  // before these fields existed lack them, which reads as null / 0.

  /**
   * When the live message's next delivery is due: on a failed attempt that JetStream will retry, now + the nak
   * delay; on a requeue, the time of the requeue. Null once a round ended.
   */
  nextAttemptAt?: Date | null;
  /**
   * When the last attempt of a message's round failed (the consumer's retry policy had no attempt left, so the
   * transport terminated the message): from then on no message of the event is live. Cleared by a requeue.
   */
  roundEndedAt?: Date | null;
  /** When the event was last published again (recovery cron, `retry-abandoned`, `redeliver`). */
  requeuedAt?: Date | null;
  /** Messages published again for this event, ever; the next one is `<provider>/requeue/<n + 1>:<eventId>`. */
  requeueCount?: number;
  /** Times the event was set aside, ever; with the event key, it names the one alert of each set-aside. */
  setAsideCount?: number;
  /** When the alert of the current set-aside was raised; null while one is owed. */
  alertedAt?: Date | null;
  /** When an operator last gave the event its attempts back (`retry-abandoned`, `redeliver`). */
  reopenedAt?: Date | null;
  /**
   * The provider's request headers kept with the event (the ones its scheme signs or identifies it with, lower-case
   * names), published again with every requeue. Absent on rows written before they were kept.
   */
  headers?: Record<string, string>;
  /**
   * The errors of the last {@link MAX_ATTEMPT_ERRORS} failed attempts, oldest first, appended under each attempt's
   * lease. Absent on rows written before it was kept, and until an attempt fails.
   */
  attemptErrors?: InboxAttemptError[];
}

/** How many failed attempts' errors a row keeps: one round's worth and more (33 attempts set an event aside). */
export const MAX_ATTEMPT_ERRORS = 33;

/** One failed attempt in {@link InboxEventDocument.attemptErrors}. */
export interface InboxAttemptError {
  /** The attempt's number (the row's `attempts` when it was claimed). */
  attempt: number;
  /** When the failure was recorded. */
  at: Date;
  /** `Name: message`, cut as `lastError` is. */
  error: string;
}

/** A verified provider event, as the gateway published it. */
export interface WebhookEvent {
  provider: string;
  eventId: string;
  type: string;
  receivedAt: Date;
  /** The raw JSON body. */
  payload: string;
  /** The subject the message arrived on, when read from one. */
  subject?: string;
  /** The provider's request headers the gateway kept (lower-case names); absent on messages that carry none. */
  headers?: Record<string, string>;
}

/**
 * The collections of the inbox: the events, the leases that make a claim atomic, and the alerts raised for events
 * set aside.
 */
export interface Inbox {
  readonly events: Collection<InboxEventDocument>;
  /**
   * One document per lease taken on an event (`<eventKey>#<n>`): each attempt's, and the short ones the inbox
   * operations (recovery, retry-abandoned, redeliver) take to write the row; see {@link acquireLease} for why claims
   * are inserts.
   */
  readonly leases: Collection<LeaseDocument>;
  /** One document per alert (`<eventKey>#<setAsideCount>`): its unique `_id` makes the alert happen once. */
  readonly alerts: Collection<InboxAlertDocument>;
  /**
   * The group commit of new rows (`recordAndClaimEvent`): the rows of events claimed while an insert is in flight
   * leave together in the next `insertMany`. Without it each row is its own insert. Measured in `bench:e2e` with the
   * first version leases of `upsertIfNewer` batched alike (1,500 events, two interleaved runs): Stripe 287 and 327 →
   * 395 and 382 events/s, Clerk 204 and 253 → 296 and 305.
   */
  readonly rowInserts?: BatchedInserter<InboxEventDocument>;
  /**
   * The group commit of first-attempt leases (`recordAndClaimEvent`), as `rowInserts` is of rows. Without it each
   * lease is its own insert.
   */
  readonly leaseInserts?: BatchedInserter<LeaseDocument>;
}

/**
 * The lease of an inbox attempt. A new event's first attempt holds its lease document before the event has a row:
 * `unwrittenRow` is that row, written once the attempt ends (processed or failed) or first renews its lease, so that
 * an event processed at the first try costs inserts only (see `recordAndClaimEvent`).
 */
export interface EventLease extends Lease {
  unwrittenRow?: InboxEventDocument;
}

/** The record of one alert about an event set aside; inserting it is what entitles a replica to raise the alert. */
export interface InboxAlertDocument {
  /** `<provider>:<eventId>#<setAsideCount>`. */
  _id: string;
  provider: string;
  eventId: string;
  type: string;
  attempts: number;
  lastError: string | null;
  abandonedAt: Date;
  raisedAt: Date;
  /** Who raised it (a replica's operation owner id). */
  raisedBy: string;
  /** Set when the alert hook failed (the error log line and the metric were still written). */
  hookError: string | null;
}
