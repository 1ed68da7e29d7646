import { applyDecorators, Injectable, SetMetadata } from '@nestjs/common';
import { PROCESSOR_METADATA } from './metadata-keys';

/** What `@Processor` records on a class. */
export interface ProcessorOptions {
  /** The queue the class's jobs are on, e.g. `'client-queue'`. */
  queueName: string;
}

/**
 * Marks a provider as holding jobs of one queue. List the class in your feature module's providers; the message
 * queue finds it at start-up, and each of its `@Process(JobClass.name)` methods runs the job of that name.
 */
export function Processor(options: ProcessorOptions): ClassDecorator {
  return applyDecorators(
    Injectable(),
    SetMetadata(PROCESSOR_METADATA, { queueName: options.queueName } satisfies ProcessorOptions),
  );
}
