import type Stripe from 'stripe';
import type { Collection } from 'mongodb';
import type { Clock } from '@berth/contract';
import { callStripe } from '../stripe/call-stripe';
import type { CustomerLinkDocument, WorkspaceBilling, WorkspaceDocument } from '../workspaces/collections';
import { linkCustomer } from '../workspaces/find-workspace';
import { billingStatusOf, summarizeSubscription } from './subscription-summary';

/** Options for {@link syncWorkspaceBilling}. */
export interface SyncWorkspaceBillingOptions {
  workspaces: Collection<WorkspaceDocument>;
  customers: Collection<CustomerLinkDocument>;
  stripe: Stripe;
  workspace: WorkspaceDocument;
  customerId: string;
  clock: Clock;
  /**
   * True when the workspace was found through the customer's link document, which then names it already: the link
   * is not written again (one upsert fewer per sync of a linked customer).
   */
  linked?: boolean;
}

/** Most subscriptions read for one customer. */
const MAX_SUBSCRIPTIONS = 1000;

/**
 * Reads every subscription of the customer from Stripe as it is now (`status=all`) and writes it to the workspace as
 * `billing: { customerId, subscriptions, status, syncedAt }`, which also links the workspace to the
 * customer: the customer's link document (`_id` = customer id) is written first (unless `linked`), so a crash between the two writes
 * leaves a link that the lookup ignores (the workspace does not name the customer yet), never a workspace its
 * customer cannot find. Call it under the workspace lock; a late or repeated event writes the same, current state.
 */
export async function syncWorkspaceBilling(options: SyncWorkspaceBillingOptions): Promise<WorkspaceBilling> {
  const { stripe, customerId } = options;
  const subscriptions = await callStripe(`subscriptions of ${customerId}`, () =>
    stripe.subscriptions
      .list({ customer: customerId, status: 'all', limit: 100 })
      .autoPagingToArray({ limit: MAX_SUBSCRIPTIONS }),
  );
  const summaries = subscriptions.map(summarizeSubscription);
  const syncedAt = options.clock.now();
  const billing: WorkspaceBilling = {
    customerId,
    subscriptions: summaries,
    status: billingStatusOf(summaries),
    syncedAt,
  };
  if (!options.linked) await linkCustomer(options.customers, customerId, options.workspace._id, syncedAt);
  await options.workspaces.updateOne({ _id: options.workspace._id }, { $set: { billing } });
  return billing;
}
