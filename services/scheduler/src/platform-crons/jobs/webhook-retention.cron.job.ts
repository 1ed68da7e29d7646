import { CronProcessor, Process } from '@berth/jobs';
import { PLATFORM_CRON_QUEUE } from '../platform-crons.tokens';
import { WebhookInboxCronJob } from './webhook-inbox-cron-job';

// Every day at 03:30 UTC.
export const WEBHOOK_RETENTION_CRON_PATTERN = '30 3 * * *';

// Deletes processed webhook events older than WEBHOOK_EVENT_RETENTION_DAYS; never an unprocessed one. Safe to run
// twice: a second run finds nothing more to delete.
@CronProcessor({ pattern: WEBHOOK_RETENTION_CRON_PATTERN, queueName: PLATFORM_CRON_QUEUE })
export class WebhookRetentionCronJob extends WebhookInboxCronJob {
  @Process(WebhookRetentionCronJob.name)
  async handle(): Promise<void> {
    const outcome = await this.inbox.deleteExpiredWebhookEvents();
    this.logger.info({ ...outcome }, 'Webhook retention done');
  }
}
