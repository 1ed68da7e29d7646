import { Controller, Inject, UseFilters } from '@nestjs/common';
import { Ctx, EventPattern } from '@nestjs/microservices';
import { processWebhookMessage } from '@berth/inbox';
import type { JetStreamContext } from '@berth/messaging';
import { BillingSyncService } from './billing-sync.service';
import { RethrowErrorsFilter } from '@berth/messaging';
import { BILLING_SYNC_RUNTIME, type BillingSyncRuntime } from './runtime';

/** The Stripe events of stream `WEBHOOKS`, through the inbox: resolves → ack; throws → retry with backoff. */
@Controller()
@UseFilters(new RethrowErrorsFilter())
export class BillingSyncController {
  constructor(
    @Inject(BILLING_SYNC_RUNTIME) private readonly runtime: BillingSyncRuntime,
    @Inject(BillingSyncService) private readonly service: BillingSyncService,
  ) {}

  /** One message of `webhooks.stripe.>`: one event, or a batch of them from the gateway's group commit. */
  @EventPattern('webhooks.stripe.>')
  async onStripeEvent(@Ctx() context: JetStreamContext): Promise<void> {
    const { inbox, owner, inboxLeaseMs, clock, logger, logContext, retryPolicy, batchConcurrency } = this.runtime;
    await processWebhookMessage({
      inbox,
      message: context.getMessage(),
      handler: (event) => this.service.apply(event),
      owner,
      leaseMs: inboxLeaseMs,
      clock,
      logger,
      retryPolicy,
      logContext,
      batchConcurrency,
    });
  }
}
