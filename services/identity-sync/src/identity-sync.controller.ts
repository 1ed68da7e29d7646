import { Controller, Inject, UseFilters } from '@nestjs/common';
import { Ctx, EventPattern } from '@nestjs/microservices';
import { processWebhookMessage } from '@berth/inbox';
import type { JetStreamContext } from '@berth/messaging';
import { IdentitySyncService } from './identity-sync.service';
import { RethrowErrorsFilter } from '@berth/messaging';
import { IDENTITY_SYNC_RUNTIME, type IdentitySyncRuntime } from './runtime';

/** The Clerk events of stream `WEBHOOKS`, through the inbox: resolves → ack; throws → retry with backoff. */
@Controller()
@UseFilters(new RethrowErrorsFilter())
export class IdentitySyncController {
  constructor(
    @Inject(IDENTITY_SYNC_RUNTIME) private readonly runtime: IdentitySyncRuntime,
    @Inject(IdentitySyncService) private readonly service: IdentitySyncService,
  ) {}

  /** One message of `webhooks.clerk.>`: one event, or a batch of them from the gateway's group commit. */
  @EventPattern('webhooks.clerk.>')
  async onClerkEvent(@Ctx() context: JetStreamContext): Promise<void> {
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
