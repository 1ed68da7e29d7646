import type { WorkspaceBillingState, WorkspaceSubscription } from './billing-queue.contract';

/** Subscription statuses that grant seats (Stripe keeps serving `past_due` while it retries the payment). */
const SEAT_GRANTING_STATUSES = new Set(['active', 'trialing', 'past_due']);

/**
 * Seats a workspace pays for: the quantities of the items of its live subscriptions (an item without quantity
 * counts 1), or the free plan's seats when none is live.
 */
export function seatLimitOf(billing: WorkspaceBillingState, freePlanSeatLimit: number): number {
  const live = billing.subscriptions.filter((subscription) => SEAT_GRANTING_STATUSES.has(subscription.status));
  if (live.length === 0) return freePlanSeatLimit;
  return live.reduce(
    (seats, subscription) => seats + itemsOf(subscription).reduce((sum, item) => sum + (item.quantity ?? 1), 0),
    0,
  );
}

function itemsOf(subscription: WorkspaceSubscription) {
  return Array.isArray(subscription.items) ? subscription.items : (subscription.items?.data ?? []);
}
