import type { InboxHandlerEvent } from '@berth/inbox';
import type { BerthLogger } from '@berth/logger';
import type { WebhookRegistry } from './discovery/webhook-registry';
import { toReceivedWebhook } from './received-webhook';

/**
 * Runs the handlers of one inbox event: every `@OnWebhook` method of its provider naming its type or `*`, one
 * after the other, in registration order. One throwing fails the attempt (all run again on the retry, so each
 * must be safe to repeat, as the inbox asks of every handler). A type no method names is processed with a log
 * line saying so: the gateway's `eventTypes` decides what is stored, the handlers what is done with it.
 */
export async function dispatchWebhook(
  registry: WebhookRegistry,
  event: InboxHandlerEvent,
  logger: BerthLogger,
): Promise<void> {
  const handlers = registry.handlersFor(event.provider, event.type);
  if (handlers.length === 0) {
    logger.info({ type: event.type }, `No @OnWebhook handler for ${event.provider} ${event.type}: nothing to do`);
    return;
  }
  const received = toReceivedWebhook(event);
  for (const handler of handlers) await handler.run(received);
}
