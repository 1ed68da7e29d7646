import type { BerthLogger } from '@berth/logger';
import type { DiscoveryService } from '@nestjs/core';
import { cronOptionsOf, processMethodsOf, processorOptionsOf } from '../decorators/read-metadata';
import { assertJobName, assertQueueName, CRON_QUEUE_NAME } from '../names';
import { DEFAULT_CRON_TIME_ZONE, validateCronPattern } from './cron-definition';
import type { JobInfo, JobRegistry } from './job-registry';

/**
 * Finds every `@Processor` and `@CronProcessor` class among the providers of the modules the application
 * imports, and registers its `@Process` methods. Throws (so the process fails to start) on a processor with no
 * `@Process` method, a queue not declared in `forRoot`, a request-scoped processor or an invalid cron pattern.
 */
export function exploreJobs(discovery: DiscoveryService, registry: JobRegistry, declaredQueues: ReadonlySet<string>, logger: BerthLogger): void {
  for (const wrapper of discovery.getProviders()) {
    const metatype = wrapper.metatype as Function | undefined;
    if (!metatype || typeof metatype !== 'function') continue;
    const processor = processorOptionsOf(metatype);
    if (!processor) continue;
    const className = metatype.name;
    if (!wrapper.isDependencyTreeStatic() || !wrapper.instance) throw new Error(`${className}: a @Processor must be a singleton provider (not request- or transient-scoped)`);
    assertQueueName(processor.queueName);
    if (!declaredQueues.has(processor.queueName)) {
      throw new Error(`${className} is on queue ${processor.queueName}, which MessageQueueModule.forRoot({ queues }) does not declare`);
    }
    const methods = processMethodsOf(metatype);
    if (methods.length === 0) throw new Error(`${className} has @Processor but no @Process(JobClass.name) method`);
    const instance = wrapper.instance as Record<string, (data: unknown, info: JobInfo) => unknown>;
    for (const { methodName, jobName } of methods) {
      assertJobName(jobName);
      registry.register({
        queue: processor.queueName,
        name: jobName,
        className,
        run: async (data, info) => {
          await instance[methodName](data, info);
        },
      });
    }
    const cron = cronOptionsOf(metatype);
    if (cron) {
      if (processor.queueName !== CRON_QUEUE_NAME) throw new Error(`${className}: a @CronProcessor job must be on ${CRON_QUEUE_NAME}`);
      if (methods.length !== 1) throw new Error(`${className}: a @CronProcessor class has exactly one @Process method, it has ${methods.length}`);
      const timeZone = cron.timeZone ?? DEFAULT_CRON_TIME_ZONE;
      validateCronPattern(cron.pattern, timeZone);
      registry.registerCron({ name: methods[0].jobName, pattern: cron.pattern, timeZone, queue: CRON_QUEUE_NAME, className });
      logger.debug({ cron: methods[0].jobName, pattern: cron.pattern, timeZone }, `Cron ${methods[0].jobName} found: ${cron.pattern} (${timeZone})`);
    }
  }
}
