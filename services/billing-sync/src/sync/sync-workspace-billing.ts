import type Stripe from 'stripe';
import type { Collection } from 'mongodb';
import type { Clock } from '@berth/inbox';
import { callStripe } from '../stripe/call-stripe';
import type { WorkspaceBilling, WorkspaceDocument } from '../workspaces/collections';
import { billingStatusOf, summarizeSubscription } from './subscription-summary';

/** Options for {@link syncWorkspaceBilling}. */
export interface SyncWorkspaceBillingOptions {
  workspaces: Collection<WorkspaceDocument>;
  stripe: Stripe;
  workspace: WorkspaceDocument;
  customerId: string;
  clock: Clock;
}

/** Most subscriptions read for one customer. */
const MAX_SUBSCRIPTIONS = 1000;

/**
 * Reads every subscription of the customer from Stripe as it is now (`status=all`) and writes it to the workspace as
 * `billing: { customerId, subscriptions, status, syncedAt }`, which also links the workspace to the customer. Call
 * it under the workspace lock; a late or repeated event writes the same, current state.
 */
export async function syncWorkspaceBilling(options: SyncWorkspaceBillingOptions): Promise<WorkspaceBilling> {
  const { stripe, customerId } = options;
  const subscriptions = await callStripe(`subscriptions of ${customerId}`, () =>
    stripe.subscriptions.list({ customer: customerId, status: 'all', limit: 100 }).autoPagingToArray({ limit: MAX_SUBSCRIPTIONS }),
  );
  const summaries = subscriptions.map(summarizeSubscription);
  const billing: WorkspaceBilling = { customerId, subscriptions: summaries, status: billingStatusOf(summaries), syncedAt: options.clock() };
  await options.workspaces.updateOne({ _id: options.workspace._id }, { $set: { billing } });
  return billing;
}
