import { Inject, Injectable } from '@nestjs/common';
import type { InboxHandlerEvent } from '@berth/inbox';
import { UnrecoverableError } from '@berth/messaging';
import { BILLING_SYNC_RUNTIME, type BillingSyncRuntime } from './runtime';
import { classifyStripeEvent, customerIdOf, parseStripeEvent, type StripeEventPayload } from './stripe/stripe-event';
import { summarizeDispute, summarizeEarlyFraudWarning, summarizeRefund } from './sync/object-summaries';
import { isCheckoutSessionEvent, readCheckoutLink } from './sync/checkout-link';
import { syncStripeObject } from './sync/sync-stripe-object';
import { syncWorkspaceBilling } from './sync/sync-workspace-billing';
import { resolveWorkspace } from './workspaces/resolve-workspace';
import { withWorkspaceLock } from './workspaces/workspace-lock';

/**
 * Applies one Stripe event. The event is only a hint of what changed: billing-sync reads the current state from the
 * Stripe API and writes that, so duplicates, late and out-of-order events all converge on Stripe's present state.
 */
@Injectable()
export class BillingSyncService {
  constructor(@Inject(BILLING_SYNC_RUNTIME) private readonly runtime: BillingSyncRuntime) {}

  /** Handles an inbox event of provider `stripe`; throws to have it retried. */
  async apply(event: InboxHandlerEvent): Promise<void> {
    const stripeEvent = parseStripeEvent(event.body);
    const kind = classifyStripeEvent(event.type);
    const { collections, stripe, clock } = this.runtime;
    switch (kind) {
      case 'customer_state':
        return this.syncCustomerState(stripeEvent);
      case 'dispute': {
        const id = objectIdOf(stripeEvent);
        await syncStripeObject({
          collection: collections.disputes,
          id,
          what: `dispute ${id}`,
          fetch: () => stripe.disputes.retrieve(id),
          summarize: summarizeDispute,
          clock,
        });
        this.runtime.logger.info({ disputeId: id }, 'Dispute synced');
        return;
      }
      case 'refund': {
        const id = objectIdOf(stripeEvent);
        await syncStripeObject({
          collection: collections.refunds,
          id,
          what: `refund ${id}`,
          fetch: () => stripe.refunds.retrieve(id),
          summarize: summarizeRefund,
          clock,
        });
        this.runtime.logger.info({ refundId: id }, 'Refund synced');
        return;
      }
      case 'early_fraud_warning': {
        const id = objectIdOf(stripeEvent);
        await syncStripeObject({
          collection: collections.fraudWarnings,
          id,
          what: `early fraud warning ${id}`,
          fetch: () => stripe.radar.earlyFraudWarnings.retrieve(id),
          summarize: summarizeEarlyFraudWarning,
          clock,
        });
        this.runtime.logger.info({ earlyFraudWarningId: id }, 'Early fraud warning synced');
        return;
      }
      case 'ignored':
        this.runtime.logger.info({ type: event.type }, 'Stripe event type not handled: nothing to sync');
        return;
    }
  }

  private async syncCustomerState(stripeEvent: StripeEventPayload): Promise<void> {
    const { collections, stripe, logger, clock, owner, hooks } = this.runtime;
    const checkout = isCheckoutSessionEvent(stripeEvent.type) ? await readCheckoutLink(stripe, stripeEvent) : undefined;
    const customerId = checkout ? checkout.customerId : customerIdOf(stripeEvent.data.object);
    if (!customerId) {
      logger.info('Stripe event names no customer: nothing to sync');
      return;
    }
    const checkoutWorkspaceId = checkout?.workspaceId ?? null;
    const resolved = await resolveWorkspace({
      workspaces: collections.workspaces,
      customers: collections.customers,
      reads: collections.reads,
      stripe,
      customerId,
      checkoutWorkspaceId,
      logger,
      clock,
    });
    if (!resolved) {
      logger.info({ customerId }, 'Stripe customer is linked to no workspace: nothing to sync');
      return;
    }
    const { workspace, linked } = resolved;
    const workspaceId = String(workspace._id);
    const lock = {
      locks: collections.workspaceLocks,
      workspaceId,
      owner,
      leaseMs: this.runtime.workspaceLockMs,
      waitMs: this.runtime.workspaceLockWaitMs,
      clock,
    };
    const billing = await withWorkspaceLock(lock, () =>
      syncWorkspaceBilling({
        workspaces: collections.workspaces,
        customers: collections.customers,
        stripe,
        workspace,
        customerId,
        clock,
        linked,
      }),
    );
    logger.info(
      { workspaceId, customerId, billingStatus: billing.status, subscriptions: billing.subscriptions.length },
      'Workspace billing synced',
    );
    await hooks.onSubscriptionChanged(workspaceId);
  }
}

function objectIdOf(stripeEvent: StripeEventPayload): string {
  const id = stripeEvent.data.object.id;
  if (!id) throw new UnrecoverableError(`Stripe event ${stripeEvent.id} (${stripeEvent.type}) has no data.object.id`);
  return id;
}
