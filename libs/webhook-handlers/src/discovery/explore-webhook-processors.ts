import type { DiscoveryService } from '@nestjs/core';
import type { BerthLogger } from '@berth/logger';
import { onWebhookMethodsOf, webhookProcessorOptionsOf } from '../decorators/read-metadata';
import { assertProviderName } from '../names';
import type { ReceivedWebhook } from '../received-webhook';
import type { WebhookRegistry } from './webhook-registry';

/**
 * Finds every `@WebhookProcessor` class among the providers of the modules the application imports and registers
 * its `@OnWebhook` methods. Throws (the process fails to start) on a processor with no `@OnWebhook` method, a
 * method naming no type, an invalid provider name, or a request-scoped processor.
 */
export function exploreWebhookProcessors(
  discovery: DiscoveryService,
  registry: WebhookRegistry,
  logger: BerthLogger,
): void {
  for (const wrapper of discovery.getProviders()) {
    const metatype = wrapper.metatype as (abstract new (...args: never[]) => unknown) | undefined;
    if (!metatype || typeof metatype !== 'function') continue;
    const processor = webhookProcessorOptionsOf(metatype);
    if (!processor) continue;
    const className = metatype.name;
    assertProviderName(processor.provider, className);
    if (!wrapper.isDependencyTreeStatic() || !wrapper.instance)
      throw new Error(
        `${className}: a @WebhookProcessor must be a singleton provider (not request- or transient-scoped)`,
      );
    const methods = onWebhookMethodsOf(metatype);
    if (methods.length === 0) throw new Error(`${className} has @WebhookProcessor but no @OnWebhook('<type>') method`);
    const instance = wrapper.instance as Record<string, (event: ReceivedWebhook) => unknown>;
    for (const { methodName, types } of methods) {
      if (types.length === 0 || types.some((type) => typeof type !== 'string' || type === ''))
        throw new Error(`${className}.${methodName}: @OnWebhook needs event types, or '*'`);
      registry.register({
        provider: processor.provider,
        types,
        name: `${className}.${methodName}`,
        run: async (event) => {
          await instance[methodName](event);
        },
      });
      logger.debug(
        { provider: processor.provider, types, handler: `${className}.${methodName}` },
        `Webhook handler ${className}.${methodName} found for ${processor.provider}`,
      );
    }
  }
}
