import type Stripe from 'stripe';
import { stripeIdOf } from '../stripe/stripe-event';

/** One price of a subscription, as stored on the workspace. */
export interface SubscriptionItemSummary {
  id: string;
  priceId: string;
  productId: string | null;
  quantity: number;
}

/** A subscription as stored on the workspace: what the product needs to decide limits and show the plan. */
export interface SubscriptionSummary {
  id: string;
  status: Stripe.Subscription.Status;
  items: SubscriptionItemSummary[];
  /** The latest `current_period_end` of the items (API versions since 2025 keep periods on items). */
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  cancelAt: Date | null;
  canceledAt: Date | null;
  trialEnd: Date | null;
  created: Date;
}

/** A workspace's billing state overall, from its subscriptions. */
export type BillingStatus = Stripe.Subscription.Status | 'none';

/** Which status wins when a customer has several subscriptions: the one that grants the most. */
const STATUS_PRIORITY: Stripe.Subscription.Status[] = [
  'active',
  'trialing',
  'past_due',
  'unpaid',
  'incomplete',
  'paused',
  'canceled',
  'incomplete_expired',
];

/** A Stripe epoch-seconds field as a Date. */
export function fromStripeTime(seconds: number | null | undefined): Date | null {
  return typeof seconds === 'number' ? new Date(seconds * 1000) : null;
}

/** Summarizes a subscription from the Stripe API. */
export function summarizeSubscription(subscription: Stripe.Subscription): SubscriptionSummary {
  const items = subscription.items?.data ?? [];
  const periodEnds = items
    .map((item) => item.current_period_end)
    .filter((value): value is number => typeof value === 'number');
  return {
    id: subscription.id,
    status: subscription.status,
    items: items.map((item) => ({
      id: item.id,
      priceId: item.price.id,
      productId: stripeIdOf(item.price.product),
      quantity: item.quantity ?? 1,
    })),
    currentPeriodEnd: periodEnds.length > 0 ? fromStripeTime(Math.max(...periodEnds)) : null,
    cancelAtPeriodEnd: subscription.cancel_at_period_end ?? false,
    cancelAt: fromStripeTime(subscription.cancel_at),
    canceledAt: fromStripeTime(subscription.canceled_at),
    trialEnd: fromStripeTime(subscription.trial_end),
    created: fromStripeTime(subscription.created) ?? new Date(0),
  };
}

/** The workspace's overall status: the best status among its subscriptions, `none` without any. */
export function billingStatusOf(subscriptions: Pick<SubscriptionSummary, 'status'>[]): BillingStatus {
  for (const status of STATUS_PRIORITY)
    if (subscriptions.some((subscription) => subscription.status === status)) return status;
  return 'none';
}
