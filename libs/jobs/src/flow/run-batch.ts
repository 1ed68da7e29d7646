import type { BerthLogger } from '@berth/logger';
import type { BatchJob, RegisteredJob } from '../discovery/job-registry';
import type { JobRecord } from '../job-record';
import { batchOutcomes } from './batch-outcomes';
import type { PrioritySemaphore } from './priority-semaphore';
import { runAttempt } from './run-attempt';

/** A job of a batch job waiting for its batch, with what to call once the batch ran (`undefined`: completed). */
export interface BatchItem {
  record: JobRecord;
  /** This job's attempt (its attempts so far plus this delivery). */
  attempt: number;
  settle: (error: unknown) => void;
}

/** What {@link runBatch} runs a batch with: the queue's slots and default deadline. */
export interface BatchContext {
  queue: string;
  slots: PrioritySemaphore;
  defaultTimeoutMs?: number;
  logger: BerthLogger;
}

/**
 * Runs one batch of a batch job in one slot of the queue (ranked by its most urgent job), under the shortest
 * deadline of its jobs, and settles each item with its own outcome ({@link batchOutcomes}). Never rejects: what
 * becomes of a failed job (retry, dead letter) is its caller's, through the one retry decision.
 */
export async function runBatch(job: RegisteredJob, items: BatchItem[], context: BatchContext): Promise<void> {
  const rank = Math.min(...items.map((item) => item.record.priority ?? 0));
  const deadlines = items
    .map((item) => item.record.timeoutMs ?? job.timeoutMs ?? context.defaultTimeoutMs)
    .filter((ms): ms is number => ms !== undefined);
  const timeoutMs = deadlines.length > 0 ? Math.min(...deadlines) : undefined;
  const jobs: BatchJob[] = items.map(({ record, attempt }) => ({
    id: record.id,
    name: job.name,
    queue: context.queue,
    attempt,
    addedAt: record.addedAt,
    data: record.data,
  }));
  const runJobs = job.runBatch;
  let failure: { error: unknown } | undefined;
  try {
    if (!runJobs) throw new Error(`Job ${job.name} of queue ${context.queue} takes no batches`);
    await context.slots.run(
      () => runAttempt((signal) => runJobs(jobs, { name: job.name, queue: context.queue, signal }), { timeoutMs }),
      rank,
    );
  } catch (error) {
    failure = { error };
  }
  context.logger.debug(
    { jobName: job.name, jobCount: items.length, failed: failure !== undefined },
    `Batch of ${items.length} job(s) of ${job.name} ran`,
  );
  const outcomes = batchOutcomes(
    items.map((item) => item.record.id),
    failure,
  );
  for (const item of items) item.settle(outcomes.get(item.record.id));
}
