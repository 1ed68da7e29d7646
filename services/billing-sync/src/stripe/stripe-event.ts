import { z } from 'zod';
import { UnrecoverableError } from '@berth/messaging';

/** The part of a Stripe event billing-sync reads: which object it is about. The rest is fetched fresh. */
export const stripeEventSchema = z.object({
  id: z.string(),
  type: z.string(),
  data: z.object({ object: z.looseObject({ id: z.string().optional(), object: z.string().optional() }) }),
});

/** A Stripe event, reduced to what billing-sync trusts: ids. */
export type StripeEventPayload = z.infer<typeof stripeEventSchema>;

/** Validates an event body; a body without `data.object` can never be processed. */
export function parseStripeEvent(body: unknown): StripeEventPayload {
  const result = stripeEventSchema.safeParse(body);
  if (!result.success)
    throw new UnrecoverableError(
      `Not a Stripe event: ${result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  return result.data;
}

/** What an event type asks billing-sync to do. */
export type StripeEventKind = 'customer_state' | 'dispute' | 'refund' | 'early_fraud_warning' | 'ignored';

const CUSTOMER_STATE_TYPES = new Set([
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
]);

/**
 * Sorts event types: subscription, invoice, customer and checkout events make billing-sync re-read the customer's
 * subscriptions; dispute, refund and early-fraud-warning events make it re-read that object; others are ignored
 * (processed, nothing written).
 */
export function classifyStripeEvent(type: string): StripeEventKind {
  if (CUSTOMER_STATE_TYPES.has(type) || type.startsWith('customer.subscription.') || type.startsWith('invoice.'))
    return 'customer_state';
  if (type.startsWith('charge.dispute.')) return 'dispute';
  if (type.startsWith('refund.') || type === 'charge.refund.updated') return 'refund';
  if (type.startsWith('radar.early_fraud_warning.')) return 'early_fraud_warning';
  return 'ignored';
}

/** The id in a Stripe field that is either an id or an expanded object. */
export function stripeIdOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string')
    return (value as { id: string }).id;
  return null;
}

/** The customer an event's object belongs to: the object itself for a customer, else its `customer` field. */
export function customerIdOf(object: StripeEventPayload['data']['object']): string | null {
  if (object.object === 'customer') return object.id ?? null;
  return stripeIdOf(object.customer);
}
