import { isWebhookBatch, processWebhookMessage, readWebhookBatch, readWebhookMessage, reopenResentWebhookEvent, type ProcessInboxEventResult, type ProcessWebhookMessageOptions, type WebhookEvent } from '@berth/inbox';

/**
 * Runs one `WEBHOOKS` message through the inbox ({@link processWebhookMessage}), then gives a provider's resend its
 * due: an event found set aside whose copy in this message was received by the gateway after it was set aside is
 * reopened ({@link reopenResentWebhookEvent}) and the message runs again, so the resent event is processed (once:
 * the inbox's claim still holds), while a redelivery or a requeue of the same event leaves it set aside.
 */
export async function handleWebhookMessage(options: ProcessWebhookMessageOptions): Promise<ProcessInboxEventResult[]> {
  const results = await processWebhookMessage(options);
  if (!results.includes('abandoned')) return results;
  const events: WebhookEvent[] = isWebhookBatch(options.message) ? readWebhookBatch(options.message) : [readWebhookMessage(options.message)];
  let reopened = 0;
  for (const [index, event] of events.entries()) {
    if (results[index] !== 'abandoned') continue;
    const outcome = await reopenResentWebhookEvent({ inbox: options.inbox, provider: event.provider, eventId: event.eventId, receivedAt: event.receivedAt, clock: options.clock });
    if (outcome !== 'reopened') continue;
    reopened += 1;
    options.logger.warn({ provider: event.provider, eventId: event.eventId, receivedAt: event.receivedAt }, 'Set-aside webhook event sent again by its provider: reopened');
  }
  return reopened > 0 ? processWebhookMessage(options) : results;
}
