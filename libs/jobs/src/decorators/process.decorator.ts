import { SetMetadata } from '@nestjs/common';
import { PROCESS_METADATA } from './metadata-keys';

/**
 * Names the job a method runs: `@Process(SendClientSummaryJob.name)`. Naming the job after its class means the
 * name can't be misspelled between the code that queues it and the code that runs it. The method receives the
 * job's data, then a `JobInfo` (id, attempt…) if it wants one; resolving completes the job, throwing retries it
 * (or, with `UnrecoverableError`, fails it at once).
 */
export function Process(jobName: string): MethodDecorator {
  return SetMetadata(PROCESS_METADATA, jobName);
}
