import { CRON_QUEUE_NAME } from '@berth/jobs';

/**
 * The queues of the worker. A queue groups jobs that are retried and scaled together; add a name here to create
 * one (each gets its durable consumer `jobs-<queue>` when the worker starts).
 */
export const MESSAGE_QUEUE_NAMES = [CRON_QUEUE_NAME, 'client-queue', 'billing-queue'] as const;

/** One of {@link MESSAGE_QUEUE_NAMES}. */
export type MessageQueueName = (typeof MESSAGE_QUEUE_NAMES)[number];

/** The webhook providers the worker's feature modules handle (`@WebhookProcessor`): each gets its consumer's metrics. */
export const APP_WORKER_WEBHOOK_PROVIDERS = ['github'] as const;
