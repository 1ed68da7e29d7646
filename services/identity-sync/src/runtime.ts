import type { Clock, Inbox } from '@berth/inbox';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import type { RetryPolicy } from '@berth/messaging';
import type { IdentityCollections } from './collections';

/** Everything identity-sync's handlers use, built once by `createIdentitySyncApp` and injected into Nest. */
export interface IdentitySyncRuntime {
  inbox: Inbox;
  collections: IdentityCollections;
  logger: BerthLogger;
  /** Gives each event of a batch message its own log context. */
  logContext?: LogContextStore;
  /** Events of one batch message handled at once: the consumer's concurrency. */
  batchConcurrency: number;
  clock: Clock;
  /** This replica's id: the owner of its inbox claims. */
  owner: string;
  inboxLeaseMs: number;
  /**
   * The consumer's retry policy, the same object its transport naks by: the inbox records from it when a failed
   * event's retry is due, or that its round ended, which the recovery cron reads.
   */
  retryPolicy: RetryPolicy;
}

/** The Nest injection token of the {@link IdentitySyncRuntime}. */
export const IDENTITY_SYNC_RUNTIME = Symbol('IDENTITY_SYNC_RUNTIME');
