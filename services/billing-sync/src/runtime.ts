import type Stripe from 'stripe';
import type { Clock, Inbox } from '@berth/inbox';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import type { RetryPolicy } from '@berth/messaging';
import type { BillingSyncHooks } from './hooks';
import type { BillingCollections } from './workspaces/collections';

/** Everything billing-sync's handlers use, built once by `createBillingSyncApp` and injected into Nest. */
export interface BillingSyncRuntime {
  inbox: Inbox;
  collections: BillingCollections;
  stripe: Stripe;
  logger: BerthLogger;
  /** Gives each event of a batch message its own log context. */
  logContext?: LogContextStore;
  /** Events of one batch message handled at once: the consumer's concurrency. */
  batchConcurrency: number;
  clock: Clock;
  /** This replica's id: the owner of its inbox claims and workspace locks. */
  owner: string;
  hooks: BillingSyncHooks;
  inboxLeaseMs: number;
  /**
   * The consumer's retry policy, the same object its transport naks by: the inbox records from it when a failed
   * event's retry is due, or that its round ended, which the recovery cron reads.
   */
  retryPolicy: RetryPolicy;
  workspaceLockMs: number;
  workspaceLockWaitMs: number;
}

/** The Nest injection token of the {@link BillingSyncRuntime}. */
export const BILLING_SYNC_RUNTIME = Symbol('BILLING_SYNC_RUNTIME');
