import { Inject } from '@nestjs/common';
import { Process, Processor } from '@berth/jobs';
import type { BerthLogger } from '@berth/logger';
import { APP_LOGGER } from '../../logging/logger.module';
import { BILLING_QUEUE, type ApplyWorkspaceMemberLimitJobData } from '../billing-queue.contract';
import { WorkspaceMemberLimitService } from '../workspace-member-limit.service';

export type { ApplyWorkspaceMemberLimitJobData } from '../billing-queue.contract';

// Queued by billing-sync after a subscription change, once per workspace (deduplicationId: workspaceId).
// Safe to run twice: it reads the current subscriptions and members and writes only differences.
@Processor({ queueName: BILLING_QUEUE })
export class ApplyWorkspaceMemberLimitJob {
  constructor(
    private readonly workspaceMemberLimitService: WorkspaceMemberLimitService,
    @Inject(APP_LOGGER) private readonly logger: BerthLogger,
  ) {}

  @Process(ApplyWorkspaceMemberLimitJob.name)
  async handle({ workspaceId }: ApplyWorkspaceMemberLimitJobData): Promise<void> {
    const outcome = await this.workspaceMemberLimitService.applyMemberLimit(workspaceId);
    if (outcome.seatLimit === undefined) {
      this.logger.info({ workspaceId }, 'No billing state for this workspace: nothing to apply');
      return;
    }
    this.logger.info(
      { workspaceId, ...outcome },
      `Member limit ${outcome.seatLimit} applied: ${outcome.suspended} suspended, ${outcome.reactivated} reactivated`,
    );
  }
}
