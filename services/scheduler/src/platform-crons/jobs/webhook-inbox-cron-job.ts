import { Inject } from '@nestjs/common';
import type { BerthLogger } from '@berth/logger';
import { PLATFORM_CRONS_LOGGER, WEBHOOK_INBOX_OPERATIONS, type WebhookInboxOperations } from '../platform-crons.tokens';

/**
 * What the webhook inbox crons share: the inbox operations they run and the logger they report their outcome to,
 * injected once here so that each cron is only its schedule and the one operation it runs.
 */
export abstract class WebhookInboxCronJob {
  constructor(
    @Inject(WEBHOOK_INBOX_OPERATIONS) protected readonly inbox: WebhookInboxOperations,
    @Inject(PLATFORM_CRONS_LOGGER) protected readonly logger: BerthLogger,
  ) {}
}
