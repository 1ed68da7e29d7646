import { Inject } from '@nestjs/common';
import { CronProcessor, Process } from '@berth/jobs';
import type { BerthLogger } from '@berth/logger';
import {
  PLATFORM_CRON_QUEUE,
  PLATFORM_CRONS_LOGGER,
  WEBHOOK_INBOX_OPERATIONS,
  type WebhookInboxOperations,
} from '../platform-crons.tokens';

// Every 10 minutes (UTC).
export const WEBHOOK_RECOVERY_CRON_PATTERN = '*/10 * * * *';

// Requeues webhook events still unprocessed 15 minutes after they arrived that have no live message, and sets aside
// (with one alert) those past the attempt limit. Safe to run twice: it reads the inbox and JetStream as they are.
@CronProcessor({ pattern: WEBHOOK_RECOVERY_CRON_PATTERN, queueName: PLATFORM_CRON_QUEUE })
export class WebhookRecoveryCronJob {
  constructor(
    @Inject(WEBHOOK_INBOX_OPERATIONS) private readonly inbox: WebhookInboxOperations,
    @Inject(PLATFORM_CRONS_LOGGER) private readonly logger: BerthLogger,
  ) {}

  @Process(WebhookRecoveryCronJob.name)
  async handle(): Promise<void> {
    const outcome = await this.inbox.recoverWebhookEvents();
    this.logger.info({ ...outcome }, 'Webhook recovery done');
  }
}
