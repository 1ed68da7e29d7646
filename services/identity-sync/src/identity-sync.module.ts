import { Module, type DynamicModule } from '@nestjs/common';
import { WebhooksModule, type WebhooksModuleOptions } from '@berth/webhook-handlers';
import { ClerkWebhooksProcessor } from './clerk-webhooks.processor';
import { IdentitySyncService } from './identity-sync.service';
import { IDENTITY_SYNC_RUNTIME, type IdentitySyncRuntime } from './runtime';

/** identity-sync's Nest module; its runtime (collections, clock) and its webhook consumer are passed in, so tests build them their way. */
@Module({})
export class IdentitySyncModule {
  /** The module with this runtime, consuming Clerk events as `webhooks` says. */
  static forRoot(runtime: IdentitySyncRuntime, webhooks: WebhooksModuleOptions): DynamicModule {
    return {
      module: IdentitySyncModule,
      imports: [WebhooksModule.forRoot(webhooks)],
      providers: [{ provide: IDENTITY_SYNC_RUNTIME, useValue: runtime }, IdentitySyncService, ClerkWebhooksProcessor],
    };
  }
}
