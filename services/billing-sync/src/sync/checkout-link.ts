import type Stripe from 'stripe';
import { UnrecoverableError } from '@berth/messaging';
import { callStripe } from '../stripe/call-stripe';
import { stripeIdOf, type StripeEventPayload } from '../stripe/stripe-event';

/** What a Checkout Session, as the Stripe API has it now, links: its customer, and the workspace it was opened for. */
export interface CheckoutLink {
  readonly customerId: string | null;
  /** The session's `client_reference_id` when the session is complete; null otherwise (nothing to link). */
  readonly workspaceId: string | null;
}

/** True for the Checkout Session events whose session may link a workspace to a customer. */
export function isCheckoutSessionEvent(type: string): boolean {
  return type.startsWith('checkout.session.');
}

/**
 * Reads the event's Checkout Session from the Stripe API and says what it links. The event body is not trusted
 * for this, as for every other event: linking a workspace to a customer decides whose subscriptions it gets, so
 * it follows what Stripe says the session is (its customer, its `client_reference_id`, and `status: complete`).
 *
 * @throws UnrecoverableError when the event names no session (or Stripe has no such session); Stripe errors as
 * {@link callStripe} classifies them.
 */
export async function readCheckoutLink(stripe: Stripe, stripeEvent: StripeEventPayload): Promise<CheckoutLink> {
  const sessionId = stripeEvent.data.object.id;
  if (!sessionId)
    throw new UnrecoverableError(`Stripe event ${stripeEvent.id} (${stripeEvent.type}) names no checkout session`);
  const session = await callStripe(`checkout session ${sessionId}`, () => stripe.checkout.sessions.retrieve(sessionId));
  const reference = session.client_reference_id;
  return {
    customerId: stripeIdOf(session.customer),
    workspaceId: session.status === 'complete' && typeof reference === 'string' && reference !== '' ? reference : null,
  };
}
