import { systemClock, type Clock } from '@berth/contract';
import { randomUUID } from 'node:crypto';
import type { BerthLogger } from '@berth/logger';
import { GroupCommitQueue, isNotFound, publishMessage, type Messaging, type PublishResult } from '@berth/messaging';
import { assertJobName, assertQueueName, JOBS_STREAM_NAME, jobSubjectOf, priorityConsumerName } from '../../names';
import { encodeJobRecord, JOB_COUNT_HEADER, joinEncodedRecords, type JobRecord } from '../../job-record';
import { assertAddJobOptions, type AddedJob, type AddJobOptions } from '../../job-options';
import type { JobLocation } from '../deduplication-registry';
import type { JobInfrastructure } from './job-infrastructure';
import { jobGroupCommitOptions, type BatchingOptions } from './job-batch-publisher';
import { publishScheduledJob } from './publish-scheduled-job';
import { FAIR_JOB_NAME_HEADER, FAIR_JOBS_STREAM_NAME, fairFeederLeaseKey, fairSubject } from './fair-jobs-stream';

/** How long a producer trusts "this queue has no fair feeder" before it looks again. */
const FAIRNESS_RECHECK_MS = 5000;

/**
 * The key a job is fair on without `fair`: its `concurrency` key; none when it opted out (`fair: false`), waits
 * first (delayed, debounced) or is a singleton (alone in its message; fair messages are group committed). Not a
 * `rateLimit` key: the feeder can't tell a used-up rate, and would feed that key's backlog in to be delayed.
 */
function defaultFairKey(options: AddJobOptions): string | undefined {
  if (options.fair === false || options.delayInMilliseconds || options.debounce || options.singleton) return undefined;
  return options.concurrency?.key;
}

/** Options the library's own callers (replay) add to {@link AddJobOptions}. */
export interface ProducerAddOptions extends AddJobOptions {
  /** A chosen job id (a replay derives it from the dead letter, so replaying twice queues once). */
  jobId?: string;
  replayOf?: string;
}

/** Options for {@link JetStreamJobProducer}. */
export interface JetStreamJobProducerOptions {
  messaging: Messaging;
  /** Resolves once streams and the deduplication bucket exist (memoized by the caller). */
  infrastructure: () => Promise<JobInfrastructure>;
  /** The default `retryLimit` of a queue. */
  retryLimitOf: (queue: string) => number;
  batching?: BatchingOptions;
  logger: BerthLogger;
  /** Stamps `addedAt` and times delays; the system clock by default. */
  clock?: Clock;
}

/**
 * Puts jobs on JetStream: `add` claims the deduplication id if any, stores the job (at once through the group
 * commit of a {@link GroupCommitQueue}, or as a schedule when delayed), records where it went, and resolves once
 * JetStream has stored it.
 */
export class JetStreamJobProducer {
  private readonly batcher: GroupCommitQueue<{ id: string; encoded: string }, PublishResult>;
  /** Priority band consumers known to exist. */
  private readonly bands = new Set<string>();
  /** Fair jobs, group-committed per queue and job name into `JOBS_FAIR` (each record names its key). */
  private readonly fairBatcher: GroupCommitQueue<{ id: string; encoded: string; name: string }, PublishResult>;
  /** Queues known to have a fair feeder. */
  private readonly fairQueues = new Set<string>();
  /** Queues found without one, and when (monotonic ms): asked again after a while. */
  private readonly unfairQueues = new Map<string, number>();

  private readonly clock: Clock;

  constructor(private readonly options: JetStreamJobProducerOptions) {
    this.clock = options.clock ?? systemClock;
    this.batcher = new GroupCommitQueue(
      (subject, jobs) =>
        publishMessage(options.messaging.js, {
          subject,
          data: joinEncodedRecords(jobs.map((job) => job.encoded)),
          // One job: its id, so a resent publish is dropped as a duplicate. Several: an id for this batch.
          msgId: jobs.length === 1 ? jobs[0].id : `batch:${randomUUID()}`,
          expectedStream: JOBS_STREAM_NAME,
          headers: { [JOB_COUNT_HEADER]: String(jobs.length) },
        }),
      jobGroupCommitOptions(options.batching),
    );
    this.fairBatcher = new GroupCommitQueue(
      (subject, jobs) =>
        publishMessage(options.messaging.js, {
          subject,
          data: joinEncodedRecords(jobs.map((job) => job.encoded)),
          msgId: jobs.length === 1 ? jobs[0].id : `batch:${randomUUID()}`,
          expectedStream: FAIR_JOBS_STREAM_NAME,
          headers: { [JOB_COUNT_HEADER]: String(jobs.length), [FAIR_JOB_NAME_HEADER]: jobs[0].name },
        }),
      jobGroupCommitOptions(options.batching),
    );
  }

  /** Queues a job; see `MessageQueueService.add`. */
  async add(queue: string, name: string, data: unknown, options: ProducerAddOptions = {}): Promise<AddedJob> {
    assertQueueName(queue);
    assertJobName(name);
    assertAddJobOptions(options);
    const infrastructure = await this.options.infrastructure();
    const record: JobRecord = {
      id: options.jobId ?? randomUUID(),
      data: data === undefined ? null : data,
      retryLimit: options.retryLimit ?? this.options.retryLimitOf(queue),
      attemptsMade: 0,
      addedAt: this.clock.now().toISOString(),
      ...(options.deduplicationId !== undefined ? { deduplicationId: options.deduplicationId } : {}),
      ...(options.replayOf !== undefined ? { replayOf: options.replayOf } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.concurrency !== undefined
        ? { concurrency: { key: options.concurrency.key, limit: options.concurrency.limit } }
        : {}),
      ...(options.rateLimit !== undefined
        ? { rateLimit: { key: options.rateLimit.key, limit: options.rateLimit.limit, perMs: options.rateLimit.perMs } }
        : {}),
      ...(options.debounce !== undefined ? { debounceKey: options.debounce.key } : {}),
      ...(options.singleton !== undefined ? { singletonKey: options.singleton.key } : {}),
      ...(options.priority !== undefined ? { priority: options.priority } : {}),
      ...(options.fair
        ? { fairKey: options.fair.key, ...(options.fair.weight ? { fairWeight: options.fair.weight } : {}) }
        : {}),
    };
    if (record.priority !== undefined) await this.assertPriorityBand(queue, record.priority);
    if (record.fairKey !== undefined) await this.assertFairFeeder(queue, infrastructure);
    else {
      const key = defaultFairKey(options);
      if (key !== undefined && (await this.servesFairness(queue, infrastructure))) record.fairKey = key;
    }
    if (options.throttle) {
      const window = await infrastructure.windows.throttle(queue, options.throttle.key, options.throttle.ms, record.id);
      if (!window.admitted) return { id: window.jobId, deduplicated: false, dropped: 'throttled' };
    }
    if (options.singleton) {
      const held = await infrastructure.singletons.claim(queue, options.singleton.key, record.id);
      if (!held.held) return { id: held.jobId, deduplicated: false, dropped: 'singleton' };
    }
    if (options.debounce) await infrastructure.windows.debounce(queue, options.debounce.key, record.id);
    const deduplication = infrastructure.deduplication;
    let claim;
    if (options.deduplicationId !== undefined) {
      const result = await deduplication.claim(queue, options.deduplicationId, record.id);
      if (!result.claimed) {
        await this.abandonSingleton(queue, record);
        return { id: result.existingJobId, deduplicated: true };
      }
      claim = result.claim;
    }
    let location: JobLocation;
    try {
      location = await this.store(queue, name, record, options.debounce?.ms ?? options.delayInMilliseconds ?? 0);
    } catch (error) {
      if (claim)
        await deduplication
          .abandon(claim)
          .catch((abandonError: unknown) =>
            this.options.logger.warn(
              { err: abandonError },
              'Could not free a deduplication claim; it expires on its own',
            ),
          );
      await this.abandonSingleton(queue, record);
      throw error;
    }
    if (claim) {
      // The job is stored whatever happens now; if this fails the claim expires after its TTL.
      await deduplication
        .confirm(claim, location)
        .catch((error: unknown) =>
          this.options.logger.warn(
            { err: error, jobId: record.id },
            'Could not confirm a deduplication claim; it expires after its TTL',
          ),
        );
    }
    if (record.singletonKey !== undefined) {
      // The job is stored: should this fail, the claim's lease runs out and the message's existence is not checked.
      await infrastructure.singletons
        .confirm(queue, record.singletonKey, record.id, location)
        .catch((error: unknown) =>
          this.options.logger.warn(
            { err: error, jobId: record.id },
            'Could not confirm a singleton claim; it is held for its lease only',
          ),
        );
    }
    return { id: record.id, deduplicated: false };
  }

  /**
   * Throws unless the queue's workers read the job's priority band (their consumer `jobs-<queue>~p<N>` exists):
   * a job stored on a band no worker pulls would wait for ever. Checked once per queue and band, then remembered.
   */
  private async assertPriorityBand(queue: string, priority: number): Promise<void> {
    const consumer = priorityConsumerName(queue, priority);
    if (this.bands.has(consumer)) return;
    try {
      await this.options.messaging.jsm.consumers.info(JOBS_STREAM_NAME, consumer);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      throw new Error(
        `Queue ${queue} does not serve priorities: its workers must set queueOptions: { '${queue}': { priorities: true } }`,
        { cause: error },
      );
    }
    this.bands.add(consumer);
  }

  /** Throws unless a worker of the queue ever fed fair jobs (its lease `f.<queue>` exists): none would run. */
  private async assertFairFeeder(queue: string, infrastructure: JobInfrastructure): Promise<void> {
    if (!(await this.servesFairness(queue, infrastructure)))
      throw new Error(
        `Queue ${queue} does not serve fair jobs: its workers turned fairness off (queueOptions: { '${queue}': { fairness: false } }), or none ever started`,
      );
  }

  /**
   * Whether a worker of the queue ever fed fair jobs (its lease `f.<queue>` exists). Remembered once true; a
   * false answer is asked again after {@link FAIRNESS_RECHECK_MS}, so keyed jobs become fair soon after the queue's
   * first worker started.
   */
  private async servesFairness(queue: string, infrastructure: JobInfrastructure): Promise<boolean> {
    if (this.fairQueues.has(queue)) return true;
    const checkedAt = this.unfairQueues.get(queue);
    if (checkedAt !== undefined && this.clock.monotonic() - checkedAt < FAIRNESS_RECHECK_MS) return false;
    if (await infrastructure.windows.kv.get(fairFeederLeaseKey(queue))) {
      this.fairQueues.add(queue);
      this.unfairQueues.delete(queue);
      return true;
    }
    this.unfairQueues.set(queue, this.clock.monotonic());
    return false;
  }

  /** Frees the singleton key claimed for a job that was not stored after all. */
  private async abandonSingleton(queue: string, record: JobRecord): Promise<void> {
    if (record.singletonKey === undefined) return;
    const infrastructure = await this.options.infrastructure();
    await infrastructure.singletons
      .release(queue, record.singletonKey, record.id)
      .catch((error: unknown) =>
        this.options.logger.warn({ err: error }, 'Could not free a singleton claim; it expires after its lease'),
      );
  }

  /**
   * Stores a job that already ran and failed, to run again after `delayMs`: used for a job that travelled in a
   * batch (the batch message can't be retried for one of its jobs). Its attempts so far travel in the record.
   */
  async requeueForRetry(queue: string, name: string, record: JobRecord, delayMs: number): Promise<JobLocation> {
    const ack = await publishScheduledJob(
      this.options.messaging.js,
      queue,
      name,
      record,
      new Date(this.clock.now().getTime() + delayMs),
      `retry:${record.id}:${record.attemptsMade}`,
      'retry',
    );
    return { stream: ack.stream, seq: ack.seq, scheduled: true };
  }

  private async store(queue: string, name: string, record: JobRecord, delayMs: number): Promise<JobLocation> {
    if (delayMs > 0) {
      const ack = await publishScheduledJob(
        this.options.messaging.js,
        queue,
        name,
        record,
        new Date(this.clock.now().getTime() + delayMs),
        `delayed:${record.id}`,
      );
      return { stream: ack.stream, seq: ack.seq, scheduled: true };
    }
    const encoded = encodeJobRecord(record);
    if (record.fairKey !== undefined) {
      const ack = await this.fairBatcher.enqueue(
        fairSubject(queue, name),
        { id: record.id, encoded, name },
        encoded.length,
      );
      // Held like a delayed job: it gets its message in JOBS when the feeder moves it there.
      return { stream: ack.stream, seq: ack.seq, scheduled: true };
    }
    if (record.singletonKey !== undefined) {
      // Alone in its message: the key is held while that message exists, and a failed attempt naks it in place.
      const ack = await publishMessage(this.options.messaging.js, {
        subject: jobSubjectOf(queue, name, record.priority),
        data: joinEncodedRecords([encoded]),
        msgId: record.id,
        expectedStream: JOBS_STREAM_NAME,
        headers: { [JOB_COUNT_HEADER]: '1' },
      });
      return { stream: ack.stream, seq: ack.seq, scheduled: false };
    }
    const ack = await this.batcher.enqueue(
      jobSubjectOf(queue, name, record.priority),
      { id: record.id, encoded },
      encoded.length,
    );
    return { stream: ack.stream, seq: ack.seq, scheduled: false };
  }
}
