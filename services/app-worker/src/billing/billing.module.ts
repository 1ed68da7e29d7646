import { Module, type DynamicModule } from '@nestjs/common';
import { ApplyWorkspaceMemberLimitJob } from './jobs/apply-workspace-member-limit.job';
import { FREE_PLAN_SEAT_LIMIT, WorkspaceMemberLimitService } from './workspace-member-limit.service';

/** The Billing feature of the worker: keeps workspace members within the seats paid for. */
@Module({})
export class BillingModule {
  static register(options: { freePlanSeatLimit: number }): DynamicModule {
    return {
      module: BillingModule,
      providers: [
        { provide: FREE_PLAN_SEAT_LIMIT, useValue: options.freePlanSeatLimit },
        WorkspaceMemberLimitService,
        ApplyWorkspaceMemberLimitJob,
      ],
    };
  }
}
