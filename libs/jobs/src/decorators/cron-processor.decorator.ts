import { applyDecorators, SetMetadata } from '@nestjs/common';
import { CRON_QUEUE_NAME } from '../names';
import { CRON_METADATA } from './metadata-keys';
import { Processor } from './processor.decorator';

/** What `@CronProcessor` records on a class. */
export interface CronProcessorOptions {
  /** 5 fields: minute, hour, day of the month, month, day of the week (`0 8 * * 1` is Mondays at 08:00). */
  pattern: string;
  /** IANA time zone the pattern is read in; UTC when unset, whatever the server's zone. */
  timeZone?: string;
}

/**
 * Replaces `@Processor` for a scheduled job: puts the class's jobs on the `cron-queue` and records their schedule,
 * which the scheduler registers. A tick is an ordinary job of the cron queue, with the same retries and dead
 * letters as any job.
 */
export function CronProcessor(options: CronProcessorOptions): ClassDecorator {
  return applyDecorators(
    Processor({ queueName: CRON_QUEUE_NAME }),
    SetMetadata(CRON_METADATA, { pattern: options.pattern, timeZone: options.timeZone } satisfies CronProcessorOptions),
  );
}
