import { randomUUID } from 'node:crypto';
import type { BerthLogger, LogContext, LogContextStore } from '@berth/logger';
import {
  decideRetry,
  describeError,
  ensureConsumer,
  RetryLaterError,
  startConsumer,
  type ConsumerRunner,
  type GiveUpReason,
  type Messaging,
  type ReceivedMessage,
  type RetryPolicy,
} from '@berth/messaging';
import type { DeadLetterReason } from '../../dead-letters/dead-letter';
import { jobDeadLetter, unreadableDeadLetter } from '../../dead-letters/job-dead-letter';
import { writeDeadLetter } from '../../dead-letters/write-dead-letter';
import type { JobRegistry, RegisteredJob } from '../../discovery/job-registry';
import { JobCancelledError, PoisonMessageError, UnknownJobError } from '../../errors';
import { runJobAttempt } from '../../flow/run-job-attempt';
import { createWorkerEvents, type WorkerEvents } from '../../flow/worker-events';
import { BatchCollector } from '../../flow/batch-collector';
import { runBatch, type BatchContext, type BatchItem } from '../../flow/run-batch';
import type { JobObserver } from '../../job-observer';
import { decodeJobMessage, type JobRecord } from '../../job-record';
import { jobRetryPolicy, type ResolvedQueueOptions } from '../../job-options';
import {
  DELAYED_JOBS_STREAM_NAME,
  dueQueueFilterSubject,
  JOBS_STREAM_NAME,
  parseJobSubject,
  PRIORITY_LEVELS,
  priorityConsumerName,
  priorityFilterSubject,
  queueConsumerName,
  queueFilterSubject,
} from '../../names';
import { PrioritySemaphore } from '../../flow/priority-semaphore';
import type { CancellationWatch } from '../cancellations';
import { createJobGates, GateActions, keyLimitOf, type JobGate } from './job-gates';
import { passGates } from './gated-attempt';
import { startFairFeeder, type FairFeeder } from './fair-feeder';
import { startParkedJobSweep, type ParkedJobSweep } from './parked-job-sweep';
import type { JobInfrastructure } from './job-infrastructure';
import type { JetStreamJobProducer } from './jetstream-job-producer';

/** Options for {@link JetStreamQueueWorker}. */
export interface JetStreamQueueWorkerOptions {
  messaging: Messaging;
  queue: string;
  settings: ResolvedQueueOptions;
  registry: JobRegistry;
  producer: JetStreamJobProducer;
  infrastructure: JobInfrastructure;
  logger: BerthLogger;
  logContext?: LogContextStore;
  /** Random source for backoff jitter; tests pass a fixed one. */
  random?: () => number;
  observer?: JobObserver;
  /** Where the worker reports its jobs' passage (`WorkerEventMap`); a new emitter by default. */
  events?: WorkerEvents;
}

/** A job message as read: its job name and records, or why it can't be read. */
type ParsedJobMessage = { name: string; records: JobRecord[] } | { name: string; invalid: Error };

/** Retries of a whole batch message after an infrastructure failure (never given up on; nothing is lost). */
const BATCH_RETRY_POLICY: RetryPolicy = {
  maxAttempts: Number.POSITIVE_INFINITY,
  delayAfter: (failedAttempts) => Math.min(1000 * 2 ** Math.max(0, failedAttempts - 1), 60000),
};

/**
 * Runs one queue's jobs in this process: the durable consumers `jobs-<queue>` on `JOBS` (jobs to run now) and on
 * `JOBS_DELAYED` (delayed jobs that became due), pulled by the messaging runner (concurrency, heartbeats,
 * ack/nak/term, graceful stop), with the job semantics on top. Both share the queue's concurrency.
 *
 * - A message with one job: the job's failure goes back to the runner, which naks it with the job's backoff
 *   (attempt = attempts carried in the record + delivery count) or, after `UnrecoverableError` or the last
 *   attempt, copies it to the dead letters and terminates it.
 * - A message with several jobs (queued in one burst): they run side by side within the queue's concurrency;
 *   one that fails is stored again on its own as a delayed job carrying its attempt count (or dead-lettered),
 *   and the message is acked once every job in it is settled.
 * - A job's deduplication id is released when it completes or is dead-lettered, before its message is acked.
 * - Each attempt gets an `AbortSignal`: it fires at the attempt's `timeoutMs` (the attempt fails with
 *   `JobTimeoutError`) or when the job is cancelled (the job is dropped and its message acked). A job cancelled
 *   before it runs is dropped when a worker takes it.
 * - Poison limit: a redelivered message whose earlier deliveries were not all ended by a worker (see
 *   the delivery ledger, `berth_job_deliveries`) took a worker down that many times; at the queue's `poisonLimit` it goes to the dead
 *   letters with reason `poison` without running.
 */
export class JetStreamQueueWorker {
  private runners: ConsumerRunner[] = [];
  /** The queue's concurrency; a freed slot goes to the most urgent job waiting for one (see `priorities`). */
  private readonly slots: PrioritySemaphore;
  private readonly parsed = new WeakMap<ReceivedMessage, ParsedJobMessage>();
  /** Deliveries of a message ended by a worker before this one (read from the ledger on a redelivery). */
  private readonly endedBefore = new WeakMap<ReceivedMessage, number>();
  private readonly cancelledMessages = new WeakSet<ReceivedMessage>();
  /** Single-job messages whose job was parked for a concurrency slot: acked, but no attempt ran. */
  private readonly parkedMessages = new WeakSet<ReceivedMessage>();
  private cancellations?: CancellationWatch;
  private fairFeeder?: FairFeeder;
  private parkedSweep?: ParkedJobSweep;
  /** Slot releases under way (see `releaseInBackground`); awaited by `stop`. */
  private readonly releasing = new Set<Promise<void>>();
  /** Jobs of batch jobs waiting for their batch to fill, by job name. */
  private readonly collectors = new Map<string, BatchCollector<BatchItem>>();

  /** What happens to each job as it goes through its gates and its attempt. */
  readonly events: WorkerEvents;
  private readonly actions: GateActions;
  private readonly gates: JobGate[];

  constructor(private readonly options: JetStreamQueueWorkerOptions) {
    this.slots = new PrioritySemaphore(options.settings.concurrency);
    this.events = options.events ?? createWorkerEvents();
    const gateOptions = { ...options, cancellations: () => this.cancellations, releasing: this.releasing };
    this.actions = new GateActions(gateOptions);
    this.gates = createJobGates(gateOptions, this.actions);
  }

  /** The largest batch size of the queue's batch jobs (1 without any): each slot runs up to that many jobs. */
  private get batchSize(): number {
    const sizes = this.options.registry.jobsOf(this.options.queue).map((job) => job.batch?.size ?? 1);
    return Math.max(1, ...sizes);
  }

  /** Jobs running now. */
  get activeJobs(): number {
    return this.slots.active;
  }

  /** True while every one of the queue's consumers pulls ({@link ConsumerRunner.healthy}). */
  get healthy(): boolean {
    const expected = 2 + (this.options.settings.priorities ? PRIORITY_LEVELS : 0);
    return this.runners.length === expected && this.runners.every((runner) => runner.healthy);
  }

  /**
   * Provisions the queue's durable consumers and starts pulling. With `priorities`, also one consumer per priority
   * band, and every consumer of `JOBS` may hold twice the concurrency: up to `concurrency` jobs of each band wait in
   * hand for a slot, so the slot that frees next goes to the most urgent of them, not to whichever pull came back.
   */
  async start(): Promise<void> {
    const { queue, settings } = this.options;
    const batchJob = this.options.registry.jobsOf(queue).find((job) => job.batch);
    if (batchJob && settings.rateLimit)
      throw new Error(
        `Queue ${queue} has a rateLimit, which counts jobs one by one: its batch job ${batchJob.name} cannot run there`,
      );
    this.cancellations = await this.options.infrastructure.cancellations.watch(queue);
    // A slot of a batch job runs a batch: enough jobs are held to fill one per slot. A queue with per-key limits
    // holds eight times its concurrency, so jobs pass their admission (a group-committed KV change) while others run.
    const limited =
      settings.rateLimit !== undefined ||
      this.options.registry.jobsOf(queue).some((job) => job.concurrency || job.rateLimit);
    const inHand =
      (settings.priorities ? settings.concurrency * 2 : settings.concurrency) * this.batchSize * (limited ? 8 : 1);
    this.runners.push(await this.startRunner(JOBS_STREAM_NAME, queueFilterSubject(queue), undefined, inHand));
    if (settings.priorities) {
      for (let priority = 1; priority <= PRIORITY_LEVELS; priority++) {
        this.runners.push(
          await this.startRunner(
            JOBS_STREAM_NAME,
            priorityFilterSubject(queue, priority),
            priorityConsumerName(queue, priority),
            inHand,
          ),
        );
      }
    }
    this.runners.push(
      await this.startRunner(
        DELAYED_JOBS_STREAM_NAME,
        dueQueueFilterSubject(queue),
        undefined,
        settings.concurrency * this.batchSize,
      ),
    );
    this.parkedSweep = startParkedJobSweep({
      keySlots: this.options.infrastructure.keySlots,
      queue,
      leaseMs: settings.ackWaitMs,
      limitOf: (record, name) => keyLimitOf(this.options.registry.find(queue, name), record),
      logger: this.options.logger,
    });
    if (settings.fairness) {
      const leases = this.options.infrastructure.windows.kv;
      // The lease key's existence tells producers the queue serves fair jobs (see the producer's check).
      await leases.create(`f.${queue}`, JSON.stringify({ owner: '', until: 0 })).catch(() => undefined);
      this.fairFeeder = startFairFeeder({
        js: this.options.messaging.js,
        jsm: this.options.messaging.jsm,
        leases,
        queue,
        owner: `${queue}:${randomUUID()}`,
        logger: this.options.logger,
      });
    }
  }

  /** Stops taking jobs and lets running ones finish, up to `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    const runners = this.runners;
    this.runners = [];
    await this.fairFeeder?.stop();
    this.fairFeeder = undefined;
    const stopping = Promise.all(runners.map((runner) => runner.stop(graceMs)));
    // Jobs waiting for a batch to fill run now rather than after waitMs.
    for (const collector of this.collectors.values()) collector.flush();
    await stopping;
    await this.parkedSweep?.stop();
    this.parkedSweep = undefined;
    // Slot releases still being group committed are stored before the process goes.
    await Promise.all([...this.releasing]);
    await this.options.infrastructure.keySlots.drain().catch(() => undefined);
    await this.cancellations?.stop();
  }

  private async startRunner(
    stream: string,
    filterSubject: string,
    durable = queueConsumerName(this.options.queue),
    inHand = this.options.settings.concurrency,
  ): Promise<ConsumerRunner> {
    const { messaging, queue, settings } = this.options;
    await ensureConsumer(messaging.jsm, {
      stream,
      durable,
      filterSubjects: [filterSubject],
      ackWaitMs: settings.ackWaitMs,
      maxAckPending: settings.maxAckPending,
      description: `Workers of queue ${queue}`,
    });
    return startConsumer({
      js: messaging.js,
      stream,
      consumer: durable,
      concurrency: inHand,
      ackWaitMs: settings.ackWaitMs,
      logger: this.options.logger,
      logContext: this.options.logContext,
      contextFor: (message) => this.contextFor(message),
      attemptOf: (message) => this.attemptOf(message),
      weightOf: (message) => this.weightOf(message, stream),
      retryPolicy: (message) => this.retryPolicyOf(message),
      handler: (message) => this.handle(message, stream),
      onGiveUp: (message, error, reason) => this.giveUp(message, error, reason),
      beforeNak: (message) => this.recordEnded(message, stream),
      onOutcome: (message, outcome, durationMs) => {
        if (outcome !== 'retried') this.forgetDeliveries(message, stream);
        this.observeSingle(message, outcome, durationMs);
      },
    });
  }

  private parse(message: ReceivedMessage, stream = JOBS_STREAM_NAME): ParsedJobMessage {
    const cached = this.parsed.get(message);
    if (cached) return cached;
    const name = parseJobSubject(message.subject)?.name ?? '_invalid';
    let parsed: ParsedJobMessage;
    try {
      parsed = {
        name,
        records: decodeJobMessage(message.text(), {
          headers: message.headers,
          msgId: message.msgId,
          stream,
          streamSequence: message.streamSequence,
          storedAt: message.storedAt,
          defaultRetryLimit: this.options.settings.retryLimit,
        }),
      };
    } catch (error) {
      parsed = { name, invalid: error as Error };
    }
    this.parsed.set(message, parsed);
    return parsed;
  }

  private contextFor(message: ReceivedMessage): LogContext {
    const parsed = this.parse(message);
    const fields: LogContext = { queue: this.options.queue, jobName: parsed.name };
    if ('records' in parsed && parsed.records.length === 1) fields.jobId = parsed.records[0].id;
    else if ('records' in parsed) fields.jobCount = parsed.records.length;
    return fields;
  }

  /** A message of one job settled: that is the job's attempt (a batch's jobs are observed one by one). */
  private observeSingle(
    message: ReceivedMessage,
    outcome: 'acked' | 'retried' | 'terminated',
    durationMs: number,
  ): void {
    const parsed = this.parse(message);
    if (
      !this.options.observer?.jobFinished ||
      !('records' in parsed) ||
      parsed.records.length !== 1 ||
      this.parkedMessages.has(message)
    )
      return;
    const finished = this.cancelledMessages.has(message)
      ? 'cancelled'
      : outcome === 'acked'
        ? 'completed'
        : outcome === 'retried'
          ? 'retried'
          : 'dead-lettered';
    this.options.observer.jobFinished({
      queue: this.options.queue,
      name: parsed.name,
      attempt: this.attemptOf(message),
      durationMs,
      outcome: finished,
    });
  }

  /** Jobs in the message: the runner pulls only while the jobs in hand are fewer than the concurrency. */
  private weightOf(message: ReceivedMessage, stream: string): number {
    const parsed = this.parse(message, stream);
    return 'records' in parsed ? parsed.records.length : 1;
  }

  private attemptOf(message: ReceivedMessage): number {
    const parsed = this.parse(message);
    return 'records' in parsed && parsed.records.length === 1
      ? parsed.records[0].attemptsMade + message.deliveryCount
      : message.deliveryCount;
  }

  private retryPolicyOf(message: ReceivedMessage): RetryPolicy {
    const parsed = this.parse(message);
    if ('records' in parsed && parsed.records.length === 1)
      return jobRetryPolicy(this.options.settings.backoff, parsed.records[0].retryLimit, this.options.random);
    return BATCH_RETRY_POLICY;
  }

  private async handle(message: ReceivedMessage, stream: string): Promise<void> {
    const parsed = this.parse(message);
    if ('invalid' in parsed) throw parsed.invalid;
    await this.assertNotPoison(message, stream);
    const job = this.options.registry.find(this.options.queue, parsed.name);
    if (!job) throw new UnknownJobError(this.options.queue, parsed.name);
    if (job.batch) return this.handleBatchJob(job, parsed.records, message, stream);
    if (parsed.records.length === 1) {
      await this.runSingle(job, parsed.records[0], message, stream);
      return;
    }
    const outcomes = await Promise.allSettled(parsed.records.map((record) => this.runBatched(job, record, message)));
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed)
      throw new RetryLaterError(
        `Could not settle every job of a batch: ${describeError(failed.reason)}`,
        BATCH_RETRY_POLICY.delayAfter(message.deliveryCount),
        { cause: failed.reason },
      );
  }

  /**
   * The jobs of a message for a batch job: each goes to its job's collector and runs in a batch. A message of one
   * job fails with that job's error (the runner retries it like any job); in a message of several, a failed job is
   * stored again on its own ({@link settleBatchedFailure}). A job added with its own flow options runs alone.
   */
  private async handleBatchJob(
    job: RegisteredJob,
    records: JobRecord[],
    message: ReceivedMessage,
    stream: string,
  ): Promise<void> {
    const single = records.length === 1;
    const outcomes = await Promise.allSettled(
      records.map((record) => this.runInBatch(job, record, message, stream, single)),
    );
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (!failed) return;
    if (single) throw failed.reason;
    throw new RetryLaterError(
      `Could not settle every job of a batch: ${describeError(failed.reason)}`,
      BATCH_RETRY_POLICY.delayAfter(message.deliveryCount),
      { cause: failed.reason },
    );
  }

  private async runInBatch(
    job: RegisteredJob,
    record: JobRecord,
    message: ReceivedMessage,
    stream: string,
    single: boolean,
  ): Promise<void> {
    if (hasOwnFlowControl(record)) {
      await (single ? this.runSingle(job, record, message, stream) : this.runBatched(job, record, message));
      return;
    }
    const cancelled = this.cancellations?.get(record.id);
    if (cancelled) {
      if (single) this.cancelledMessages.add(message);
      await this.dropCancelled(record, new JobCancelledError(record.id, cancelled.reason));
      if (!single) this.finishedInMessage(job, record.attemptsMade + message.deliveryCount, 0, 'cancelled');
      return;
    }
    if (single) await this.relocateIfMoved(record, message, stream);
    const attempt = record.attemptsMade + message.deliveryCount;
    const started = performance.now();
    const error = await new Promise<unknown>((settle) => this.collectorOf(job).add({ record, attempt, settle }));
    if (error === undefined) {
      await this.releaseDeduplication(record);
      if (!single) this.finishedInMessage(job, attempt, performance.now() - started, 'completed');
      return;
    }
    if (single) throw error;
    const run = async (): Promise<void> => {
      const outcome = await this.settleBatchedFailure(job, record, message, attempt, error);
      this.finishedInMessage(job, attempt, performance.now() - started, outcome);
    };
    const fields = { queue: this.options.queue, jobName: job.name, jobId: record.id, attempt, jobCount: undefined };
    await (this.options.logContext ? this.options.logContext.run(fields, run) : run());
  }

  private get batchContext(): BatchContext {
    return {
      queue: this.options.queue,
      slots: this.slots,
      defaultTimeoutMs: this.options.settings.timeoutMs,
      logger: this.options.logger,
    };
  }

  private collectorOf(job: RegisteredJob): BatchCollector<BatchItem> {
    let collector = this.collectors.get(job.name);
    if (!collector) {
      const { size, waitMs } = job.batch as { size: number; waitMs: number };
      collector = new BatchCollector<BatchItem>({
        size,
        waitMs,
        flush: (items) => void runBatch(job, items, this.batchContext),
      });
      this.collectors.set(job.name, collector);
    }
    return collector;
  }

  /** A job of a message of several settled (a message of one is observed when the runner settles it). */
  private finishedInMessage(
    job: RegisteredJob,
    attempt: number,
    durationMs: number,
    outcome: 'completed' | 'retried' | 'dead-lettered' | 'cancelled',
  ): void {
    this.options.observer?.jobFinished?.({ queue: this.options.queue, name: job.name, outcome, attempt, durationMs });
  }

  /** One job alone in its message; the log context (job name, id, attempt) is the runner's. */
  private async runSingle(
    job: RegisteredJob,
    record: JobRecord,
    message: ReceivedMessage,
    stream: string,
  ): Promise<void> {
    await this.relocateIfMoved(record, message, stream);
    const started = performance.now();
    try {
      if ((await this.runJob(job, record, message, stream)) === 'parked') {
        this.parkedMessages.add(message);
        return;
      }
    } catch (error) {
      if (!(error instanceof JobCancelledError)) throw error;
      this.cancelledMessages.add(message);
      await this.dropCancelled(record, error);
      return;
    }
    this.options.logger.debug({ durationMs: Math.round(performance.now() - started) }, 'Job completed');
    await this.releaseDeduplication(record);
  }

  /**
   * One job through its gates (cancel, debounce, key slot, singleton, rate) and its attempt: dropped, it throws
   * `JobCancelledError` without running; set aside (parked or delayed), it resolves `'parked'` and the caller acks
   * its message without an attempt.
   */
  private async runJob(
    job: RegisteredJob,
    record: JobRecord,
    message: ReceivedMessage,
    stream: string,
  ): Promise<'ran' | 'parked'> {
    return passGates(
      {
        gates: this.gates,
        slots: this.slots,
        leaseMs: this.options.settings.ackWaitMs,
        events: this.events,
        attempt: () =>
          runJobAttempt({
            job,
            data: record.data,
            info: {
              id: record.id,
              name: job.name,
              queue: this.options.queue,
              attempt: record.attemptsMade + message.deliveryCount,
              addedAt: record.addedAt,
            },
            timeoutMs: record.timeoutMs ?? job.timeoutMs ?? this.options.settings.timeoutMs,
            cancellations: this.cancellations,
            events: this.events,
          }),
      },
      { job, record, message, stream },
    );
  }

  private async dropCancelled(record: JobRecord, error: JobCancelledError): Promise<void> {
    this.options.logger.info({ jobId: record.id, cancelReason: error.reason }, `Job ${record.id} cancelled: dropped`);
    await this.releaseDeduplication(record);
    await this.actions.releaseSingleton(record);
  }

  /** Throws {@link PoisonMessageError} when workers died `poisonLimit` times holding this message. */
  private async assertNotPoison(message: ReceivedMessage, stream: string): Promise<void> {
    if (message.deliveryCount === 1) {
      this.endedBefore.set(message, 0);
      return;
    }
    let ended: number;
    try {
      ended = await this.options.infrastructure.deliveries.endedDeliveries(this.delivered(message, stream));
    } catch (error) {
      this.options.logger.warn(
        { err: error },
        'Could not read how often this message was delivered; not checking its poison limit',
      );
      return;
    }
    this.endedBefore.set(message, ended);
    const deaths = message.deliveryCount - 1 - ended;
    if (deaths >= this.options.settings.poisonLimit) throw new PoisonMessageError(deaths);
    if (deaths > 0)
      this.options.logger.warn(
        { deaths, deliveryCount: message.deliveryCount },
        `A worker died ${deaths} time(s) while holding this message`,
      );
  }

  private async recordEnded(message: ReceivedMessage, stream: string): Promise<void> {
    const delivered = this.delivered(message, stream);
    const before =
      this.endedBefore.get(message) ??
      (message.deliveryCount === 1 ? 0 : await this.options.infrastructure.deliveries.endedDeliveries(delivered));
    await this.options.infrastructure.deliveries.recordEnded(delivered, before + 1);
  }

  private forgetDeliveries(message: ReceivedMessage, stream: string): void {
    if (message.deliveryCount === 1) return;
    this.options.infrastructure.deliveries
      .forget(this.delivered(message, stream))
      .catch((error: unknown) =>
        this.options.logger.warn(
          { err: error },
          'Could not drop the delivery count of a settled message; it expires on its own',
        ),
      );
  }

  private delivered(
    message: ReceivedMessage,
    stream: string,
  ): { queue: string; stream: string; streamSequence: number } {
    return { queue: this.options.queue, stream, streamSequence: message.streamSequence };
  }

  /** One job of a batch message, in its own log context; settles itself unless storing the outcome fails. */
  private async runBatched(job: RegisteredJob, record: JobRecord, message: ReceivedMessage): Promise<void> {
    const attempt = record.attemptsMade + message.deliveryCount;
    const run = async (): Promise<void> => {
      const started = performance.now();
      const finished = (outcome: 'completed' | 'retried' | 'dead-lettered' | 'cancelled'): void =>
        this.options.observer?.jobFinished?.({
          queue: this.options.queue,
          name: job.name,
          outcome,
          attempt,
          durationMs: performance.now() - started,
        });
      try {
        if ((await this.runJob(job, record, message, JOBS_STREAM_NAME)) === 'parked') return;
      } catch (error) {
        if (error instanceof JobCancelledError) {
          await this.dropCancelled(record, error);
          finished('cancelled');
          return;
        }
        finished(await this.settleBatchedFailure(job, record, message, attempt, error));
        return;
      }
      this.options.logger.debug({ durationMs: Math.round(performance.now() - started) }, 'Job completed');
      await this.releaseDeduplication(record);
      finished('completed');
    };
    const fields = { queue: this.options.queue, jobName: job.name, jobId: record.id, attempt, jobCount: undefined };
    await (this.options.logContext ? this.options.logContext.run(fields, run) : run());
  }

  private async settleBatchedFailure(
    job: RegisteredJob,
    record: JobRecord,
    message: ReceivedMessage,
    attempt: number,
    error: unknown,
  ): Promise<'retried' | 'dead-lettered'> {
    const policy = jobRetryPolicy(this.options.settings.backoff, record.retryLimit, this.options.random);
    const decision = decideRetry(policy, { attempt, error });
    if (decision.kind === 'give-up') {
      const { reason } = decision;
      await this.deadLetter(job.name, record, message, error, reason, attempt);
      this.options.logger.error(
        { err: error, attempt, reason },
        `Gave up after attempt ${attempt}: ${describeError(error)}`,
      );
      return 'dead-lettered';
    }
    const { delayMs } = decision;
    const location = await this.options.producer.requeueForRetry(
      this.options.queue,
      job.name,
      { ...record, attemptsMade: attempt },
      delayMs,
    );
    if (record.deduplicationId !== undefined) {
      await this.options.infrastructure.deduplication
        .relocate(this.options.queue, record.deduplicationId, record.id, location)
        .catch((relocateError: unknown) =>
          this.options.logger.warn({ err: relocateError }, 'Could not record where a retried job went'),
        );
    }
    this.options.logger.warn(
      { err: error, attempt, retryInMs: delayMs },
      `Attempt ${attempt} failed: ${describeError(error)}`,
    );
    return 'retried';
  }

  private async giveUp(message: ReceivedMessage, error: unknown, reason: GiveUpReason): Promise<void> {
    const parsed = this.parse(message);
    const origin = { queue: this.options.queue, name: parsed.name, message };
    if ('invalid' in parsed) {
      const ack = await writeDeadLetter(this.options.messaging.js, unreadableDeadLetter(origin, error));
      this.options.logger.info(
        { deadLetterId: ack.seq, deadLetterReason: 'invalid' },
        `Unreadable job message copied to the dead letters (id ${ack.seq})`,
      );
      this.options.observer?.jobDeadLettered?.({ queue: this.options.queue, name: parsed.name, reason: 'invalid' });
      return;
    }
    const letterReason: DeadLetterReason =
      error instanceof UnknownJobError ? 'invalid' : error instanceof PoisonMessageError ? 'poison' : reason;
    for (const record of parsed.records) {
      await this.deadLetter(
        parsed.name,
        record,
        message,
        error,
        letterReason,
        record.attemptsMade + message.deliveryCount,
      );
    }
  }

  private async deadLetter(
    name: string,
    record: JobRecord,
    message: ReceivedMessage,
    error: unknown,
    reason: DeadLetterReason,
    attempts: number,
  ): Promise<void> {
    const ack = await writeDeadLetter(
      this.options.messaging.js,
      jobDeadLetter({ queue: this.options.queue, name, message }, record, error, reason, attempts),
    );
    this.options.logger.info(
      { jobId: record.id, deadLetterId: ack.seq, deadLetterReason: reason },
      `Job ${record.id} copied to the dead letters (id ${ack.seq})`,
    );
    this.options.observer?.jobDeadLettered?.({ queue: this.options.queue, name, reason });
    await this.releaseDeduplication(record);
    await this.actions.releaseSingleton(record);
    const limit = keyLimitOf(this.options.registry.find(this.options.queue, name), record);
    if (limit) await this.actions.releaseKey(limit, record);
  }

  /** A delayed job that became due, or a retried one, has a new message: the deduplication entry follows it. */
  private async relocateIfMoved(record: JobRecord, message: ReceivedMessage, stream: string): Promise<void> {
    if (record.deduplicationId === undefined || stream !== DELAYED_JOBS_STREAM_NAME) return;
    await this.options.infrastructure.deduplication
      .relocate(this.options.queue, record.deduplicationId, record.id, {
        stream,
        seq: message.streamSequence,
        scheduled: false,
      })
      .catch((error: unknown) => this.options.logger.warn({ err: error }, 'Could not record where a delayed job went'));
  }

  private async releaseDeduplication(record: JobRecord): Promise<void> {
    if (record.deduplicationId === undefined) return;
    try {
      await this.options.infrastructure.deduplication.release(this.options.queue, record.deduplicationId, record.id);
    } catch (error) {
      // The entry then points at a message about to be acked: the next add finds it stale and replaces it.
      this.options.logger.warn(
        { err: error, deduplicationId: record.deduplicationId },
        'Could not release a deduplication id',
      );
    }
  }
}

/** A job added with its own flow options (per-key concurrency or rate, debounce, singleton) runs alone. */
function hasOwnFlowControl(record: JobRecord): boolean {
  return (
    record.concurrency !== undefined ||
    record.rateLimit !== undefined ||
    record.debounceKey !== undefined ||
    record.singletonKey !== undefined
  );
}
