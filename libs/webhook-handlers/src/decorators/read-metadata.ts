/// <reference types="reflect-metadata" />
import { ON_WEBHOOK_METADATA, WEBHOOK_PROCESSOR_METADATA } from './metadata-keys';
import type { WebhookProcessorOptions } from './webhook-processor.decorator';

type Constructor = abstract new (...args: never[]) => unknown;

/**
 * A class's or method's metadata under `key`. `reflect-metadata` is not imported here, so loading this module has no
 * side effect: the decorators store their metadata through `@nestjs/common`, which installs `reflect-metadata` when
 * loaded; until something has installed it, no class carries any metadata to read.
 */
function metadataOf<T>(key: string, target: object): T | undefined {
  return typeof Reflect.getMetadata === 'function' ? (Reflect.getMetadata(key, target) as T | undefined) : undefined;
}

/** The `@WebhookProcessor` options of a class, if it has the decorator. */
export function webhookProcessorOptionsOf(target: Constructor): WebhookProcessorOptions | undefined {
  return metadataOf<WebhookProcessorOptions>(WEBHOOK_PROCESSOR_METADATA, target);
}

/** The `@OnWebhook` methods of a class (own and inherited), with the types each handles, in declaration order. */
export function onWebhookMethodsOf(target: Constructor): { methodName: string; types: string[] }[] {
  const found: { methodName: string; types: string[] }[] = [];
  const seen = new Set<string>();
  for (
    let proto = target.prototype as object | null;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    for (const methodName of Object.getOwnPropertyNames(proto)) {
      if (methodName === 'constructor' || seen.has(methodName)) continue;
      const descriptor = Object.getOwnPropertyDescriptor(proto, methodName);
      if (typeof descriptor?.value !== 'function') continue;
      const types = metadataOf<string[]>(ON_WEBHOOK_METADATA, descriptor.value);
      if (!types) continue;
      seen.add(methodName);
      found.push({ methodName, types });
    }
  }
  return found;
}
