import type Stripe from 'stripe';
import { stripeIdOf } from '../stripe/stripe-event';
import { fromStripeTime } from './subscription-summary';

/** A dispute as stored in `billingDisputes` (keyed by its Stripe id). */
export function summarizeDispute(dispute: Stripe.Dispute): Record<string, unknown> {
  return {
    amount: dispute.amount,
    currency: dispute.currency,
    status: dispute.status,
    reason: dispute.reason,
    chargeId: stripeIdOf(dispute.charge),
    paymentIntentId: stripeIdOf(dispute.payment_intent),
    evidenceDueBy: fromStripeTime(dispute.evidence_details?.due_by),
    isChargeRefundable: dispute.is_charge_refundable ?? null,
    livemode: dispute.livemode,
    created: fromStripeTime(dispute.created),
  };
}

/** A refund as stored in `billingRefunds`. */
export function summarizeRefund(refund: Stripe.Refund): Record<string, unknown> {
  return {
    amount: refund.amount,
    currency: refund.currency,
    status: refund.status ?? null,
    reason: refund.reason ?? null,
    failureReason: refund.failure_reason ?? null,
    chargeId: stripeIdOf(refund.charge),
    paymentIntentId: stripeIdOf(refund.payment_intent),
    created: fromStripeTime(refund.created),
  };
}

/** A Radar early fraud warning as stored in `fraudWarnings`. */
export function summarizeEarlyFraudWarning(warning: Stripe.Radar.EarlyFraudWarning): Record<string, unknown> {
  return {
    actionable: warning.actionable,
    fraudType: warning.fraud_type,
    chargeId: stripeIdOf(warning.charge),
    paymentIntentId: stripeIdOf(warning.payment_intent),
    livemode: warning.livemode,
    created: fromStripeTime(warning.created),
  };
}
