import { applyDecorators, SetMetadata } from '@nestjs/common';
import { CRON_QUEUE_NAME } from '../names';
import { CRON_METADATA } from './metadata-keys';
import { Processor } from './processor.decorator';

/** What `@CronProcessor` records on a class. */
export interface CronProcessorOptions {
  /**
   * 5 fields: minute, hour, day of the month, month, day of the week (`0 8 * * 1` is Mondays at 08:00); or 6 with
   * seconds first (`*\/5 * * * * *`, every 5 seconds).
   */
  pattern: string;
  /** IANA time zone the pattern is read in; UTC when unset, whatever the server's zone. */
  timeZone?: string;
  /**
   * The queue of its ticks; `cron-queue` unless set. Every worker of a queue shares one consumer, and a worker
   * dead-letters a job it does not run, so crons that run in a process of their own (the scheduler's platform crons)
   * take a queue of their own. Product crons keep the default.
   */
  queueName?: string;
}

/**
 * Replaces `@Processor` for a scheduled job: puts the class's jobs on the `cron-queue` (or `queueName`) and records
 * their schedule, which the service registers at start-up. A tick is an ordinary job of that queue, with the same
 * retries and dead letters as any job.
 */
export function CronProcessor(options: CronProcessorOptions): ClassDecorator {
  return applyDecorators(
    Processor({ queueName: options.queueName ?? CRON_QUEUE_NAME }),
    SetMetadata(CRON_METADATA, { pattern: options.pattern, timeZone: options.timeZone } satisfies CronProcessorOptions),
  );
}
