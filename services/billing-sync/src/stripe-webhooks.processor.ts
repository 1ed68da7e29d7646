import { Inject } from '@nestjs/common';
import { OnWebhook, WebhookProcessor, type ReceivedWebhook } from '@berth/webhook-handlers';
import { BillingSyncService } from './billing-sync.service';

/** Every Stripe event stored on `webhooks.stripe.>`, through the inbox: resolves → processed; throws → retried. */
@WebhookProcessor({ provider: 'stripe' })
export class StripeWebhooksProcessor {
  constructor(@Inject(BillingSyncService) private readonly service: BillingSyncService) {}

  /** The service tells the types it syncs from those it logs as "nothing to sync". */
  @OnWebhook('*')
  async handle(event: ReceivedWebhook): Promise<void> {
    await this.service.apply(event);
  }
}
