import type Stripe from 'stripe';
import type { Clock } from '@berth/contract';
import type { BerthLogger } from '@berth/logger';
import type { BillingSyncHooks } from './hooks';
import type { BillingCollections } from './workspaces/collections';

/** Everything billing-sync's handlers use, built once by `createBillingSyncApp` and injected into Nest. */
export interface BillingSyncRuntime {
  collections: BillingCollections;
  stripe: Stripe;
  logger: BerthLogger;
  clock: Clock;
  /** This replica's id: the owner of its inbox claims and workspace locks. */
  owner: string;
  hooks: BillingSyncHooks;
  workspaceLockMs: number;
  workspaceLockWaitMs: number;
}

/** The Nest injection token of the {@link BillingSyncRuntime}. */
export const BILLING_SYNC_RUNTIME = Symbol('BILLING_SYNC_RUNTIME');
