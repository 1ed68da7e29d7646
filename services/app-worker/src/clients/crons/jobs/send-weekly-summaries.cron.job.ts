import { CronProcessor, Process } from '@berth/jobs';
import { ClientSummaryRequests } from '../../client-summary-requests.service';

// Every Monday at 08:00 UTC.
export const SEND_WEEKLY_SUMMARIES_CRON_PATTERN = '0 8 * * 1';

// Queues one summary per workspace: the slow work runs in many small jobs.
@CronProcessor({ pattern: SEND_WEEKLY_SUMMARIES_CRON_PATTERN })
export class SendWeeklySummariesCronJob {
  constructor(private readonly clientSummaryRequests: ClientSummaryRequests) {}

  @Process(SendWeeklySummariesCronJob.name)
  async handle(): Promise<void> {
    await this.clientSummaryRequests.queueSummaryForEveryWorkspace();
  }
}
