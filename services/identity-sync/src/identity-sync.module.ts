import { Module, type DynamicModule } from '@nestjs/common';
import { IdentitySyncController } from './identity-sync.controller';
import { IdentitySyncService } from './identity-sync.service';
import { IDENTITY_SYNC_RUNTIME, type IdentitySyncRuntime } from './runtime';

/** identity-sync's Nest module; its runtime (collections, clock) is passed in, so tests build it their way. */
@Module({})
export class IdentitySyncModule {
  /** The module with this runtime. */
  static forRoot(runtime: IdentitySyncRuntime): DynamicModule {
    return {
      module: IdentitySyncModule,
      controllers: [IdentitySyncController],
      providers: [{ provide: IDENTITY_SYNC_RUNTIME, useValue: runtime }, IdentitySyncService],
    };
  }
}
