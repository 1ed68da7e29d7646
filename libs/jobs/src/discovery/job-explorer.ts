import { systemClock, type Clock } from '@berth/contract';
import type { BerthLogger } from '@berth/logger';
import type { DiscoveryService } from '@nestjs/core';
import { cronOptionsOf, processMethodsOf, processorOptionsOf } from '../decorators/read-metadata';
import { cronTickOf, type CronRunGuard } from '../cron-run-guard';
import { assertKeyLimit, assertRate, assertTimeout } from '../job-options';
import { assertJobName, assertQueueName } from '../names';
import { DEFAULT_CRON_TIME_ZONE, validateCronPattern } from './cron-definition';
import { BatchJobError } from '../errors';
import type { BatchInfo, BatchJob, JobInfo, JobRegistry, RegisteredJob } from './job-registry';

/**
 * Finds every `@Processor` and `@CronProcessor` class among the providers of the modules the application
 * imports, and registers its `@Process` methods. Throws (so the process fails to start) on a processor with no
 * `@Process` method, a queue not declared in `forRoot`, a request-scoped processor or an invalid cron pattern.
 * A cron's runs go through `cronRunGuard` when one is given (the overlap policy of the service).
 */
export function exploreJobs(
  discovery: DiscoveryService,
  registry: JobRegistry,
  declaredQueues: ReadonlySet<string>,
  logger: BerthLogger,
  cronRunGuard?: CronRunGuard,
  clock: Clock = systemClock,
): void {
  for (const wrapper of discovery.getProviders()) {
    const metatype = wrapper.metatype as (abstract new (...args: never[]) => unknown) | undefined;
    if (!metatype || typeof metatype !== 'function') continue;
    const processor = processorOptionsOf(metatype);
    if (!processor) continue;
    const className = metatype.name;
    if (!wrapper.isDependencyTreeStatic() || !wrapper.instance)
      throw new Error(`${className}: a @Processor must be a singleton provider (not request- or transient-scoped)`);
    assertQueueName(processor.queueName);
    if (!declaredQueues.has(processor.queueName)) {
      throw new Error(
        `${className} is on queue ${processor.queueName}, which MessageQueueModule.forRoot({ queues }) does not declare`,
      );
    }
    const methods = processMethodsOf(metatype);
    if (methods.length === 0) throw new Error(`${className} has @Processor but no @Process(JobClass.name) method`);
    const instance = wrapper.instance as Record<string, (data: unknown, info: JobInfo) => unknown>;
    const cron = cronOptionsOf(metatype);
    if (cron && methods.length !== 1)
      throw new Error(`${className}: a @CronProcessor class has exactly one @Process method, it has ${methods.length}`);
    const timeZone = cron?.timeZone ?? DEFAULT_CRON_TIME_ZONE;
    if (cron) validateCronPattern(cron.pattern, timeZone, clock.now());
    for (const { methodName, jobName, options = {} } of methods) {
      assertJobName(jobName);
      if (options.timeoutMs !== undefined) assertTimeout(options.timeoutMs);
      if (options.concurrency !== undefined) assertKeyLimit(options.concurrency.limit);
      if (options.rateLimit !== undefined) assertRate(options.rateLimit);
      if (options.batch !== undefined) assertBatchOptions(className, jobName, options, cron !== undefined);
      const queue = processor.queueName;
      const batchMethod = instance[methodName] as unknown as (jobs: BatchJob[], info: BatchInfo) => unknown;
      const runBatch = async (jobs: BatchJob[], info: BatchInfo): Promise<void> => {
        await batchMethod.call(instance, jobs, info);
      };
      const handle = options.batch
        ? async (data: unknown, info: JobInfo): Promise<void> => {
            const { signal = new AbortController().signal, ...job } = info;
            try {
              await runBatch([{ ...job, data }], { name: info.name, queue: info.queue, signal });
            } catch (error) {
              if (!(error instanceof BatchJobError)) throw error;
              const failure = error.failures.find((failed) => failed.jobId === info.id);
              if (failure) throw failure.error ?? new Error(`Job ${info.id} failed in its batch`);
            }
          }
        : async (data: unknown, info: JobInfo): Promise<void> => {
            await instance[methodName](data, info);
          };
      const guard = cron ? cronRunGuard : undefined;
      registry.register({
        queue,
        name: jobName,
        className,
        run: guard
          ? async (data, info) => {
              await guard({ name: jobName, queue, tick: cronTickOf(data, info, clock), job: info }, (signal) =>
                handle(
                  data,
                  signal ? { ...info, signal: info.signal ? AbortSignal.any([info.signal, signal]) : signal } : info,
                ),
              );
            }
          : handle,
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.concurrency !== undefined
          ? { concurrency: options.concurrency as RegisteredJob['concurrency'] }
          : {}),
        ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit as RegisteredJob['rateLimit'] } : {}),
        ...(options.batch !== undefined ? { batch: { ...options.batch }, runBatch } : {}),
      });
    }
    if (cron) {
      const pattern = cron.pattern.trim();
      registry.registerCron({ name: methods[0].jobName, pattern, timeZone, queue: processor.queueName, className });
      logger.debug(
        { cron: methods[0].jobName, pattern, timeZone, queue: processor.queueName },
        `Cron ${methods[0].jobName} found: ${pattern} (${timeZone})`,
      );
    }
  }
}

/** A batch handler takes a size and a wait, and no per-key flow control (a batch has no one key); not a cron. */
function assertBatchOptions(
  className: string,
  jobName: string,
  options: { batch?: { size: number; waitMs: number }; concurrency?: unknown; rateLimit?: unknown },
  isCron: boolean,
): void {
  const where = `${className} @Process(${JSON.stringify(jobName)})`;
  const { size, waitMs } = options.batch ?? { size: NaN, waitMs: NaN };
  if (!Number.isInteger(size) || size < 1 || size > 1000)
    throw new Error(`${where}: batch.size must be an integer from 1 to 1000, got ${size}`);
  if (!Number.isFinite(waitMs) || waitMs < 0 || waitMs > 60000)
    throw new Error(`${where}: batch.waitMs must be from 0 to 60000 ms, got ${waitMs}`);
  if (options.concurrency !== undefined || options.rateLimit !== undefined)
    throw new Error(
      `${where}: a batch handler takes no concurrency or rateLimit (a batch holds jobs of many keys); ` +
        'add such jobs with their own flow options, or use a job without batch',
    );
  if (isCron) throw new Error(`${where}: a @CronProcessor method cannot take batches`);
}
