import { Inject } from '@nestjs/common';
import { OnWebhook, WebhookProcessor, type ReceivedWebhook } from '@berth/webhook-handlers';
import { IdentitySyncService } from './identity-sync.service';

/** Every Clerk event stored on `webhooks.clerk.>`, through the inbox: resolves → processed; throws → retried. */
@WebhookProcessor({ provider: 'clerk' })
export class ClerkWebhooksProcessor {
  constructor(@Inject(IdentitySyncService) private readonly service: IdentitySyncService) {}

  /** The service applies user, organization and membership changes and logs any other type as ignored. */
  @OnWebhook('*')
  async handle(event: ReceivedWebhook): Promise<void> {
    await this.service.apply(event);
  }
}
