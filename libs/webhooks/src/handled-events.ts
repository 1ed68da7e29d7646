/**
 * The webhook event types Berth acts on. The gateway publishes only these (anything else is answered 200 and
 * dropped, so no personal data is kept for nothing), and the consumers subscribe to and handle exactly these.
 * One list per provider, shared by both sides, so a type cannot be accepted by one and forgotten by the other.
 */

/**
 * Stripe event types handled by `services/billing-sync`. Each one is only a hint: the consumer reads the
 * customer's subscriptions (or the dispute, refund or early fraud warning) from the Stripe API as they are now.
 *
 * - Checkout and subscriptions: `checkout.session.completed`, `customer.subscription.*` (created, updated,
 *   deleted, paused, resumed).
 * - Customers: `customer.updated`, `customer.deleted`.
 * - Invoices: `invoice.paid`, `invoice.payment_failed`.
 * - Disputes, refunds, fraud: `charge.dispute.*`, `charge.refunded`, `refund.*`, `radar.early_fraud_warning.*`.
 */
export const STRIPE_HANDLED_EVENT_TYPES = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.paused',
  'customer.subscription.resumed',
  'customer.updated',
  'customer.deleted',
  'invoice.paid',
  'invoice.payment_failed',
  'charge.dispute.created',
  'charge.dispute.updated',
  'charge.dispute.closed',
  'charge.refunded',
  'refund.created',
  'refund.updated',
  'radar.early_fraud_warning.created',
  'radar.early_fraud_warning.updated',
] as const;

/** One of {@link STRIPE_HANDLED_EVENT_TYPES}. */
export type StripeHandledEventType = (typeof STRIPE_HANDLED_EVENT_TYPES)[number];

/**
 * Clerk event types handled by `services/identity-sync`: user, organization and membership changes. A change is
 * applied only when its `updated_at` is newer than the stored one; `*.deleted` events are soft deletes.
 */
export const CLERK_HANDLED_EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.deleted',
  'organization.created',
  'organization.updated',
  'organization.deleted',
  'organizationMembership.created',
  'organizationMembership.updated',
  'organizationMembership.deleted',
] as const;

/** One of {@link CLERK_HANDLED_EVENT_TYPES}. */
export type ClerkHandledEventType = (typeof CLERK_HANDLED_EVENT_TYPES)[number];
