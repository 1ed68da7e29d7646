/// <reference types="reflect-metadata" />
import { CRON_METADATA, PROCESS_METADATA, PROCESS_OPTIONS_METADATA, PROCESSOR_METADATA } from './metadata-keys';
import type { ProcessOptions } from './process.decorator';
import type { CronProcessorOptions } from './cron-processor.decorator';
import type { ProcessorOptions } from './processor.decorator';

type Constructor = abstract new (...args: never[]) => unknown;

/**
 * A class's or method's metadata under `key`. `reflect-metadata` is not imported here, so loading this module has no
 * side effect: the decorators store their metadata through `@nestjs/common`, which installs `reflect-metadata` when
 * loaded; until something has installed it, no class carries any metadata to read.
 */
function metadataOf<T>(key: string, target: object): T | undefined {
  return typeof Reflect.getMetadata === 'function' ? (Reflect.getMetadata(key, target) as T | undefined) : undefined;
}

/** The `@Processor` (or `@CronProcessor`) options of a class, if it has them. */
export function processorOptionsOf(target: Constructor): ProcessorOptions | undefined {
  return metadataOf<ProcessorOptions>(PROCESSOR_METADATA, target);
}

/** The `@CronProcessor` options of a class, if it has them. */
export function cronOptionsOf(target: Constructor): CronProcessorOptions | undefined {
  return metadataOf<CronProcessorOptions>(CRON_METADATA, target);
}

/** The job names (and `@Process` options) of a class's `@Process` methods, by method name (own and inherited methods). */
export function processMethodsOf(
  target: Constructor,
): { methodName: string; jobName: string; options?: ProcessOptions }[] {
  const found: { methodName: string; jobName: string; options?: ProcessOptions }[] = [];
  const seen = new Set<string>();
  for (
    let proto = target.prototype as object | null;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const methodName of Object.getOwnPropertyNames(proto)) {
      if (methodName === 'constructor' || seen.has(methodName)) continue;
      seen.add(methodName);
      const descriptor = Object.getOwnPropertyDescriptor(proto, methodName);
      if (typeof descriptor?.value !== 'function') continue;
      const jobName = metadataOf<string>(PROCESS_METADATA, descriptor.value);
      const options = metadataOf<ProcessOptions>(PROCESS_OPTIONS_METADATA, descriptor.value) ?? {};
      if (jobName !== undefined)
        found.push({ methodName, jobName, ...(Object.keys(options).length > 0 ? { options } : {}) });
    }
  }
  return found;
}
