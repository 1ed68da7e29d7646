import {
  inboxEventKey,
  isWebhookBatch,
  processWebhookMessage,
  readWebhookBatch,
  readWebhookMessage,
  reopenResentWebhookEvent,
  WEBHOOK_HEADERS,
  type ProcessInboxEventResult,
  type ProcessWebhookMessageOptions,
  type WebhookEvent,
} from '@berth/inbox';

/**
 * Runs one `WEBHOOKS` message through the inbox ({@link processWebhookMessage}), and gives a provider's resend its
 * due: an event found set aside whose copy in this message was received by the gateway after it was set aside is
 * reopened ({@link reopenResentWebhookEvent}) and runs again (once: the inbox's claim still holds), while a
 * JetStream redelivery or an inbox requeue (which carry the first receive time) leaves it set aside.
 *
 * A copy the gateway marked `Berth-Resent` (the provider sent the event again inside JetStream's duplicate window)
 * does only that: for an event recorded and not set aside it is acked at once (no result: nothing ran), so a provider's retry neither runs
 * the event twice nor starts an attempt outside its retry schedule.
 */
export async function handleWebhookMessage(options: ProcessWebhookMessageOptions): Promise<ProcessInboxEventResult[]> {
  if (options.message.headers?.get(WEBHOOK_HEADERS.resent)) {
    const event = readWebhookMessage(options.message);
    const row = await options.inbox.events.findOne(
      { _id: inboxEventKey(event.provider, event.eventId) },
      { projection: { _id: 1, abandonedAt: 1, processedAt: 1 } },
    );
    if (row && (row.processedAt || !row.abandonedAt)) {
      options.logger.info(
        { processed: Boolean(row.processedAt) },
        'Copy of a webhook event sent again by its provider; the event is not set aside, skipped',
      );
      return [];
    }
  }
  const results = await processWebhookMessage(options);
  if (!results.includes('abandoned')) return results;
  const events: WebhookEvent[] = isWebhookBatch(options.message)
    ? readWebhookBatch(options.message)
    : [readWebhookMessage(options.message)];
  let reopened = 0;
  for (const [index, event] of events.entries()) {
    if (results[index] !== 'abandoned') continue;
    const outcome = await reopenResentWebhookEvent({
      inbox: options.inbox,
      provider: event.provider,
      eventId: event.eventId,
      receivedAt: event.receivedAt,
      clock: options.clock,
    });
    if (outcome !== 'reopened') continue;
    reopened += 1;
    options.logger.warn(
      { provider: event.provider, eventId: event.eventId, receivedAt: event.receivedAt },
      'Set-aside webhook event sent again by its provider: reopened',
    );
  }
  return reopened > 0 ? processWebhookMessage(options) : results;
}
