import { Process, Processor } from '@berth/jobs';
import { ClientSummaryService } from '../client-summary.service';

export type SendClientSummaryJobData = { workspaceId: string };

// Queued once per workspace. Safe to run twice: it reads fresh data.
@Processor({ queueName: 'client-queue' })
export class SendClientSummaryJob {
  constructor(private readonly clientSummaryService: ClientSummaryService) {}

  @Process(SendClientSummaryJob.name)
  async handle({ workspaceId }: SendClientSummaryJobData): Promise<void> {
    await this.clientSummaryService.sendSummary(workspaceId);
  }
}
