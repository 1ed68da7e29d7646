import type { Collection } from 'mongodb';
import type { BatchedInserter, BatchedUpdater } from '@berth/store';

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
   * `.` or `$` (metadata), which stores refuse or read as operators, and the text is exactly what was verified.
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
   * Who holds the event's lease: the replica running an attempt, or an inbox operation (`inbox-op:…`) writing the
   * row. The row is its own lease: a claim is one conditional write on `{ _id, lease free or expired }`, and every
   * later write of the holder is fenced by `{ _id, leaseOwner, leaseUntil }`. Null when nobody holds it.
   */
  leaseOwner: string | null;
  /** Until when that lease holds; a claim may take it over after this. */
  leaseUntil: Date | null;
  /** Which attempt succeeded, whose it was and when it was claimed: set with `processedAt`. */
  processedBy?: { attempt: number; owner: string; startedAt?: Date };
  /**
   * The earlier successes of an event sent to its handler again (`resendProcessedWebhookEvent`), oldest first, so the
   * attempt log still shows them. Absent until the event is sent again.
   */
  processedBefore?: InboxSuccess[];
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
   * The errors of the last {@link MAX_ATTEMPT_ERRORS} failed attempts, oldest first, appended (`$push` with `$slice`)
   * by each failure's fenced write. Absent on rows written before it was kept, and until an attempt fails.
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
  /** Who ran the attempt (absent on entries written before it was kept). */
  owner?: string;
  /** When the attempt was claimed (absent on entries written before it was kept). */
  startedAt?: Date;
}

/** A success an event had before it was sent again: when, which attempt, whose, when it was claimed. */
export interface InboxSuccess {
  at: Date;
  attempt: number;
  owner: string;
  startedAt?: Date;
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

/** The collections of the inbox: the events (each row its own lease), and the alerts raised for events set aside. */
export interface Inbox {
  readonly events: Collection<InboxEventDocument>;
  /** One document per alert (`<eventKey>#<setAsideCount>`): its unique `_id` makes the alert happen once. */
  readonly alerts: Collection<InboxAlertDocument>;
  /**
   * The hot path's writes to `events`, group-committed: claims and outcomes of concurrent attempts (the events of
   * one batch message, the messages in flight) leave in one bulk write. One per `Inbox`, so per process.
   */
  readonly eventWrites: {
    readonly inserts: BatchedInserter<InboxEventDocument>;
    readonly updates: BatchedUpdater<InboxEventDocument>;
  };
}

/**
 * The lease an attempt or an inbox operation holds on an event row: the row's `leaseOwner` and `leaseUntil` as
 * this holder wrote them. Every write under it is fenced by exactly these values, so a holder whose lease another
 * claim took over writes nothing.
 */
export interface EventLease {
  /** The event's inbox key, `<provider>:<eventId>`. */
  readonly key: string;
  readonly owner: string;
  /** When the lease was taken (an attempt's claim). */
  readonly takenAt: Date;
  /** The lease's end as last written (a renewal moves it). */
  until: Date;
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
