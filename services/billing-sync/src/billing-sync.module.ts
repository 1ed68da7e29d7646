import { Module, type DynamicModule } from '@nestjs/common';
import { BillingSyncController } from './billing-sync.controller';
import { BillingSyncService } from './billing-sync.service';
import { BILLING_SYNC_RUNTIME, type BillingSyncRuntime } from './runtime';

/** billing-sync's Nest module; its runtime (clients, clock, hooks) is passed in, so tests build it their way. */
@Module({})
export class BillingSyncModule {
  /** The module with this runtime. */
  static forRoot(runtime: BillingSyncRuntime): DynamicModule {
    return {
      module: BillingSyncModule,
      controllers: [BillingSyncController],
      providers: [{ provide: BILLING_SYNC_RUNTIME, useValue: runtime }, BillingSyncService],
    };
  }
}
