import { Module, type DynamicModule } from '@nestjs/common';
import { WebhooksModule, type WebhooksModuleOptions } from '@berth/webhook-handlers';
import { BillingSyncService } from './billing-sync.service';
import { BILLING_SYNC_RUNTIME, type BillingSyncRuntime } from './runtime';
import { StripeWebhooksProcessor } from './stripe-webhooks.processor';

/** billing-sync's Nest module; its runtime (clients, clock, hooks) and its webhook consumer are passed in, so tests build them their way. */
@Module({})
export class BillingSyncModule {
  /** The module with this runtime, consuming Stripe events as `webhooks` says. */
  static forRoot(runtime: BillingSyncRuntime, webhooks: WebhooksModuleOptions): DynamicModule {
    return {
      module: BillingSyncModule,
      imports: [WebhooksModule.forRoot(webhooks)],
      providers: [{ provide: BILLING_SYNC_RUNTIME, useValue: runtime }, BillingSyncService, StripeWebhooksProcessor],
    };
  }
}
