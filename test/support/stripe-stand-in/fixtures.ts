/** A Stripe API object as the stand-in stores and returns it: JSON with at least an `id`. */
export type StripeObject = { id: string } & Record<string, unknown>;

const CREATED = 1_893_456_000; // 2030-01-01T00:00:00Z

/** A customer, with Stripe's fields filled in around `fields`. */
export function customerObject(fields: { id: string } & Record<string, unknown>): StripeObject {
  return { object: 'customer', created: CREATED, email: null, name: null, livemode: false, metadata: {}, ...fields };
}

/** What Stripe answers for a deleted customer. */
export function deletedCustomerObject(id: string): StripeObject {
  return { id, object: 'customer', deleted: true };
}

/** One price of a subscription, for {@link subscriptionObject}. */
export interface SubscriptionItemFields {
  priceId: string;
  productId?: string;
  quantity?: number;
}

/**
 * A subscription of `customer`, with Stripe's shape: `items` is a list of subscription items carrying the price and
 * the current period (where API versions since 2025 put it).
 */
export function subscriptionObject(
  fields: { id: string; customer: string; status?: string; items?: SubscriptionItemFields[] } & Record<string, unknown>,
): StripeObject {
  const { items = [{ priceId: 'price_basic', productId: 'prod_basic', quantity: 1 }], ...rest } = fields;
  return {
    object: 'subscription',
    status: 'active',
    created: CREATED,
    cancel_at_period_end: false,
    cancel_at: null,
    canceled_at: null,
    trial_end: null,
    livemode: false,
    metadata: {},
    ...rest,
    items: {
      object: 'list',
      has_more: false,
      url: `/v1/subscription_items?subscription=${fields.id}`,
      data: items.map((item, index) => ({
        id: `si_${fields.id}_${index}`,
        object: 'subscription_item',
        quantity: item.quantity ?? 1,
        current_period_start: CREATED,
        current_period_end: CREATED + 30 * 24 * 3600,
        price: {
          id: item.priceId,
          object: 'price',
          product: item.productId ?? 'prod_basic',
          recurring: { interval: 'month' },
          unit_amount: 1000,
          currency: 'usd',
        },
      })),
    },
  };
}

/** A dispute. */
export function disputeObject(fields: { id: string } & Record<string, unknown>): StripeObject {
  return {
    object: 'dispute',
    amount: 1000,
    currency: 'usd',
    status: 'needs_response',
    reason: 'fraudulent',
    charge: 'ch_1',
    payment_intent: 'pi_1',
    created: CREATED,
    evidence_details: { due_by: CREATED + 7 * 24 * 3600 },
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    ...fields,
  };
}

/** A refund. */
export function refundObject(fields: { id: string } & Record<string, unknown>): StripeObject {
  return {
    object: 'refund',
    amount: 500,
    currency: 'usd',
    status: 'succeeded',
    reason: 'requested_by_customer',
    charge: 'ch_1',
    payment_intent: 'pi_1',
    created: CREATED,
    metadata: {},
    ...fields,
  };
}

/** A Radar early fraud warning. */
export function earlyFraudWarningObject(fields: { id: string } & Record<string, unknown>): StripeObject {
  return {
    object: 'radar.early_fraud_warning',
    actionable: true,
    charge: 'ch_1',
    payment_intent: 'pi_1',
    fraud_type: 'made_with_stolen_card',
    created: CREATED,
    livemode: false,
    ...fields,
  };
}

/** A Checkout Session, complete by default, with the customer and `client_reference_id` it was opened with. */
export function checkoutSessionObject(fields: { id: string } & Record<string, unknown>): StripeObject {
  return {
    object: 'checkout.session',
    mode: 'subscription',
    status: 'complete',
    payment_status: 'paid',
    customer: null,
    client_reference_id: null,
    created: CREATED,
    livemode: false,
    metadata: {},
    ...fields,
  };
}
