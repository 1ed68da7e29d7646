import { applyDecorators, Injectable, SetMetadata } from '@nestjs/common';
import { WEBHOOK_PROCESSOR_METADATA } from './metadata-keys';

/** What `@WebhookProcessor` records on a class. */
export interface WebhookProcessorOptions {
  /**
   * The provider's name as the gateway knows it (`stripe`, `clerk`, or a `WEBHOOK_PROVIDERS` entry's `name`): the
   * class handles events stored on `webhooks.<provider>.>`.
   */
  provider: string;
}

/**
 * Marks a provider class as handling one webhook provider's events. List it in a feature module's providers; the
 * `WebhooksModule` finds it at start-up, gives its provider a durable consumer, and runs each of its `@OnWebhook`
 * methods for the event types it names.
 */
export function WebhookProcessor(options: WebhookProcessorOptions): ClassDecorator {
  return applyDecorators(
    Injectable(),
    SetMetadata(WEBHOOK_PROCESSOR_METADATA, { provider: options.provider } satisfies WebhookProcessorOptions),
  );
}
