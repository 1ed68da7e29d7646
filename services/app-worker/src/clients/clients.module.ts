import { Module } from '@nestjs/common';
import { ClientSummaryRequests } from './client-summary-requests.service';
import { ClientSummaryService } from './client-summary.service';
import { SendWeeklySummariesCronJob } from './crons/jobs/send-weekly-summaries.cron.job';
import { SendClientSummaryJob } from './jobs/send-client-summary.job';

/** The Clients feature: weekly client summaries, queued by a cron, one job per workspace. */
@Module({
  providers: [ClientSummaryService, ClientSummaryRequests, SendClientSummaryJob, SendWeeklySummariesCronJob],
  exports: [ClientSummaryRequests],
})
export class ClientsModule {}
