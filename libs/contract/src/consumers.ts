/** The names of Berth's durable consumers, so the services that create them and the tools that list them agree. */

/** `jobs-<queue>`: the durable consumer every worker of a queue shares (on `JOBS`, and on `JOBS_DELAYED`). */
export function queueConsumerName(queue: string): string {
  return `jobs-${queue}`;
}

/** `jobs-<queue>~p<priority>`: the durable consumer of one priority band, shared by the queue's workers. */
export function priorityConsumerName(queue: string, priority: number): string {
  return `${queueConsumerName(queue)}~p${priority}`;
}

/** The queue of a consumer named by {@link queueConsumerName} or {@link priorityConsumerName}, or undefined for others. */
export function queueOfConsumer(consumerName: string): string | undefined {
  return consumerName.startsWith('jobs-') ? consumerName.slice('jobs-'.length).replace(/~p\d+$/, '') : undefined;
}

/** The durable consumer of a webhook provider when its settings name none: `webhooks-<provider>`. */
export function defaultWebhookConsumerName(provider: string): string {
  return `webhooks-${provider}`;
}

/** The durable consumers of the sync services on `WEBHOOKS`. */
export const WEBHOOK_CONSUMERS = Object.freeze({
  /** billing-sync: every Stripe event. */
  billingSync: 'billing-sync',
  /** identity-sync: every Clerk event. */
  identitySync: 'identity-sync',
} as const);

/** The durable consumer that fans outbound events out to endpoints. */
export const FAN_OUT_CONSUMER = 'dispatcher-fan-out';

/** `endpoint-<endpointId>`: the durable consumer of one endpoint's deliveries. */
export function endpointConsumerName(endpointId: string): string {
  return `endpoint-${endpointId}`;
}
