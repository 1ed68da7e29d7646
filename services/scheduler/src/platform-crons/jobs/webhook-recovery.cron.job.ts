import { CronProcessor, Process } from '@berth/jobs';
import { PLATFORM_CRON_QUEUE } from '../platform-crons.tokens';
import { WebhookInboxCronJob } from './webhook-inbox-cron-job';

// Every 10 minutes (UTC).
export const WEBHOOK_RECOVERY_CRON_PATTERN = '*/10 * * * *';

// Requeues webhook events still unprocessed 15 minutes after they arrived that have no live message, and sets aside
// (with one alert) those past the attempt limit. Safe to run twice: it reads the inbox and JetStream as they are.
@CronProcessor({ pattern: WEBHOOK_RECOVERY_CRON_PATTERN, queueName: PLATFORM_CRON_QUEUE })
export class WebhookRecoveryCronJob extends WebhookInboxCronJob {
  @Process(WebhookRecoveryCronJob.name)
  async handle(): Promise<void> {
    const outcome = await this.inbox.recoverWebhookEvents();
    this.logger.info({ ...outcome }, 'Webhook recovery done');
  }
}
