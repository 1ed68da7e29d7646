import 'reflect-metadata';
import { CRON_METADATA, PROCESS_METADATA, PROCESS_OPTIONS_METADATA, PROCESSOR_METADATA } from './metadata-keys';
import type { ProcessOptions } from './process.decorator';
import type { CronProcessorOptions } from './cron-processor.decorator';
import type { ProcessorOptions } from './processor.decorator';

type Constructor = abstract new (...args: never[]) => unknown;

/** The `@Processor` (or `@CronProcessor`) options of a class, if it has them. */
export function processorOptionsOf(target: Constructor): ProcessorOptions | undefined {
  return Reflect.getMetadata(PROCESSOR_METADATA, target) as ProcessorOptions | undefined;
}

/** The `@CronProcessor` options of a class, if it has them. */
export function cronOptionsOf(target: Constructor): CronProcessorOptions | undefined {
  return Reflect.getMetadata(CRON_METADATA, target) as CronProcessorOptions | undefined;
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
      const jobName = Reflect.getMetadata(PROCESS_METADATA, descriptor.value) as string | undefined;
      const options =
        (Reflect.getMetadata(PROCESS_OPTIONS_METADATA, descriptor.value) as ProcessOptions | undefined) ?? {};
      if (jobName !== undefined)
        found.push({ methodName, jobName, ...(Object.keys(options).length > 0 ? { options } : {}) });
    }
  }
  return found;
}
