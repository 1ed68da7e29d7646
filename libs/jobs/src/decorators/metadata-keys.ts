/** Reflect-metadata key of `@Processor` (on the class): `{ queueName }`. */
export const PROCESSOR_METADATA = 'berth:jobs:processor';

/** Reflect-metadata key of `@Process` (on the method): the job name. */
export const PROCESS_METADATA = 'berth:jobs:process';

/** Reflect-metadata key of `@CronProcessor` (on the class): `{ pattern, timeZone }`. */
export const CRON_METADATA = 'berth:jobs:cron';

/** Reflect-metadata key of `@Process` options (on the method): {@link ProcessOptions}. */
export const PROCESS_OPTIONS_METADATA = 'berth:jobs:process-options';
