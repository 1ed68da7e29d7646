import { SetMetadata } from '@nestjs/common';
import { ON_WEBHOOK_METADATA } from './metadata-keys';

/**
 * Names the event types a method handles: `@OnWebhook('pull_request.opened')`, a list
 * (`@OnWebhook(['pull_request.opened', 'pull_request.reopened'])`) or every type (`@OnWebhook('*')`). The method
 * receives the verified event ({@link ReceivedWebhook}); resolving marks it processed, throwing retries it with the
 * inbox's backoff, `UnrecoverableError` sets it aside at once.
 */
export function OnWebhook(types: string | readonly string[]): MethodDecorator {
  const list = typeof types === 'string' ? [types] : [...types];
  return SetMetadata(ON_WEBHOOK_METADATA, list);
}
