import { randomUUID } from 'node:crypto';
import { describeError, RetryLaterError, type ConsumerRunner, type ReceivedMessage } from '@berth/messaging';
import type { RegisteredJob } from '../../discovery/job-registry';
import { JobCancelledError, UnknownJobError } from '../../errors';
import { runJobAttempt } from '../../flow/run-job-attempt';
import { createWorkerEvents, type WorkerEvents } from '../../flow/worker-events';
import type { JobRecord } from '../../job-record';
import {
  DELAYED_JOBS_STREAM_NAME,
  dueQueueFilterSubject,
  JOBS_STREAM_NAME,
  PRIORITY_LEVELS,
  priorityConsumerName,
  priorityFilterSubject,
  queueConsumerName,
  queueFilterSubject,
} from '../../names';
import { PrioritySemaphore } from '../../flow/priority-semaphore';
import type { CancellationWatch } from '../cancellations';
import { createJobGates, GateActions, keyLimitOf, type JobGate } from './job-gates';
import {
  BATCH_RETRY_POLICY,
  GATED_IN_HAND_FACTOR,
  gatedByJobClasses,
  JobMessages,
  type JetStreamQueueWorkerOptions,
} from './job-messages';
import { DeliveryChecks } from './delivery-checks';
import { JobSettlement } from './job-settlement';
import { BatchRunner } from './batch-runner';
import { startJobRunner } from './job-runner';
import { passGates } from './gated-attempt';
import { startFairFeeder, type FairFeeder } from './fair-feeder';
import { fairFeederLeaseKey } from './fair-jobs-stream';
import { startParkedJobSweep, type ParkedJobSweep } from './parked-job-sweep';

export type { JetStreamQueueWorkerOptions } from './job-messages';

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
 * - A job that completes is recorded in `JOBS_COMPLETED` (the last few per queue); its deduplication id is released
 *   when it completes or is dead-lettered. Both happen before its message is acked.
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
  private readonly cancelledMessages = new WeakSet<ReceivedMessage>();
  /** Single-job messages whose job was parked for a concurrency slot: acked, but no attempt ran. */
  private readonly parkedMessages = new WeakSet<ReceivedMessage>();
  private cancellations?: CancellationWatch;
  private fairFeeder?: FairFeeder;
  private parkedSweep?: ParkedJobSweep;
  /** Slot releases under way (see `GateActions.releaseKeyInBackground`); awaited by `stop`. */
  private readonly releasing = new Set<Promise<void>>();

  /** What happens to each job as it goes through its gates and its attempt. */
  readonly events: WorkerEvents;
  private readonly actions: GateActions;
  private readonly gates: JobGate[];
  private readonly messages: JobMessages;
  private readonly deliveries: DeliveryChecks;
  private readonly settlement: JobSettlement;
  private readonly batches: BatchRunner;

  constructor(private readonly options: JetStreamQueueWorkerOptions) {
    this.slots = new PrioritySemaphore(options.settings.concurrency);
    this.events = options.events ?? createWorkerEvents();
    const gateOptions = { ...options, cancellations: () => this.cancellations, releasing: this.releasing };
    this.actions = new GateActions(gateOptions);
    this.gates = createJobGates(gateOptions, this.actions);
    this.messages = new JobMessages(options);
    this.deliveries = new DeliveryChecks(options);
    this.settlement = new JobSettlement(options, this.actions, this.messages);
    this.batches = new BatchRunner(
      options,
      {
        slots: this.slots,
        cancelledMessages: this.cancelledMessages,
        cancellations: () => this.cancellations,
        runSingle: (job, record, message, stream) => this.runSingle(job, record, message, stream),
        runJob: (job, record, message, stream) => this.runJob(job, record, message, stream),
      },
      this.settlement,
    );
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
    return this.runners.length === 2 && this.runners.every((runner) => runner.healthy);
  }

  /**
   * Provisions the queue's durable consumers and starts pulling. With `priorities`, also one consumer per priority
   * band, pulled by one runner in order of urgency (`startPrioritizedConsumer`): a slot that frees takes a job of a
   * band only once every more urgent band had none waiting, and only as many jobs as there are free slots are
   * taken. So no worker holds a less urgent job while a more urgent one waits in the stream for any worker.
   */
  async start(): Promise<void> {
    const { queue, settings } = this.options;
    const batchJob = this.options.registry.jobsOf(queue).find((job) => job.batch);
    if (batchJob && settings.rateLimit)
      throw new Error(
        `Queue ${queue} has a rateLimit, which counts jobs one by one: its batch job ${batchJob.name} cannot run there`,
      );
    this.cancellations = await this.options.infrastructure.cancellations.watch(queue);
    // A queue with priorities has a consumer per band besides its own (see the runner below).
    const bands = settings.priorities
      ? Array.from({ length: PRIORITY_LEVELS }, (_, index) => ({
          durable: priorityConsumerName(queue, index + 1),
          filterSubject: priorityFilterSubject(queue, index + 1),
        }))
      : undefined;
    // Before the runners: once they pull, a job may run (and a poison one end the process) while start still awaits.
    if (settings.fairness) {
      const leases = this.options.infrastructure.windows.kv;
      // The lease key's existence tells producers the queue serves fair jobs (see the producer's check).
      await leases.create(fairFeederLeaseKey(queue), JSON.stringify({ owner: '', until: 0 })).catch(() => undefined);
      this.fairFeeder = startFairFeeder({
        js: this.options.messaging.js,
        jsm: this.options.messaging.jsm,
        nc: this.options.messaging.nc,
        leases,
        queue,
        consumers: [queueConsumerName(queue), ...(bands ?? []).map((band) => band.durable)],
        owner: `${queue}:${randomUUID()}`,
        saturatedKeys: () => this.options.infrastructure.keySlots.saturated(queue),
        logger: this.options.logger,
        clock: this.options.clock,
      });
    }
    // A slot of a batch job runs a batch: enough jobs are held to fill one per slot. A queue whose job classes gate
    // every job by a key holds GATED_IN_HAND_FACTOR times its concurrency (jobs keyed at add weigh that much less).
    const inHand = settings.concurrency * this.batchSize * (gatedByJobClasses(this.options) ? GATED_IN_HAND_FACTOR : 1);
    this.runners.push(await this.startRunner(JOBS_STREAM_NAME, queueFilterSubject(queue), undefined, inHand, bands));
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
  }

  /** Stops taking jobs and lets running ones finish, up to `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    const runners = this.runners;
    this.runners = [];
    await this.fairFeeder?.stop();
    this.fairFeeder = undefined;
    const stopping = Promise.all(runners.map((runner) => runner.stop(graceMs)));
    // Jobs waiting for a batch to fill run now rather than after waitMs.
    this.batches.flush();
    await stopping;
    await this.parkedSweep?.stop();
    this.parkedSweep = undefined;
    // Slot releases still being group committed are stored before the process goes.
    await Promise.all([...this.releasing]);
    await this.options.infrastructure.keySlots.drain().catch(() => undefined);
    await this.cancellations?.stop();
  }

  private startRunner(
    stream: string,
    filterSubject: string,
    durable = queueConsumerName(this.options.queue),
    inHand = this.options.settings.concurrency,
    then?: { durable: string; filterSubject: string }[],
  ): Promise<ConsumerRunner> {
    return startJobRunner(
      this.options,
      { stream, filterSubject, durable, inHand, then },
      {
        messages: this.messages,
        deliveries: this.deliveries,
        settlement: this.settlement,
        handle: (message) => this.handle(message, stream),
        observe: (message, outcome, durationMs) =>
          this.messages.observeSingle(message, outcome, durationMs, this.parkedMessages, this.cancelledMessages),
      },
    );
  }

  private async handle(message: ReceivedMessage, stream: string): Promise<void> {
    const parsed = this.messages.parse(message);
    if ('invalid' in parsed) throw parsed.invalid;
    await this.deliveries.assertNotPoison(message, stream);
    const job = this.options.registry.find(this.options.queue, parsed.name);
    if (!job) throw new UnknownJobError(this.options.queue, parsed.name);
    if (job.batch) return this.batches.handleBatchJob(job, parsed.records, message, stream);
    if (parsed.records.length === 1) {
      await this.runSingle(job, parsed.records[0], message, stream);
      return;
    }
    const outcomes = await Promise.allSettled(
      parsed.records.map((record) => this.batches.runBatched(job, record, message)),
    );
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed)
      throw new RetryLaterError(
        `Could not settle every job of a batch: ${describeError(failed.reason)}`,
        BATCH_RETRY_POLICY.delayAfter(message.deliveryCount),
        { cause: failed.reason },
      );
  }

  /** One job alone in its message; the log context (job name, id, attempt) is the runner's. */
  private async runSingle(
    job: RegisteredJob,
    record: JobRecord,
    message: ReceivedMessage,
    stream: string,
  ): Promise<void> {
    await this.settlement.relocateIfMoved(record, message, stream);
    const started = performance.now();
    try {
      if ((await this.runJob(job, record, message, stream)) === 'parked') {
        this.parkedMessages.add(message);
        return;
      }
    } catch (error) {
      if (!(error instanceof JobCancelledError)) throw error;
      this.cancelledMessages.add(message);
      await this.settlement.dropCancelled(record, error);
      return;
    }
    this.options.logger.debug({ durationMs: Math.round(performance.now() - started) }, 'Job completed');
    await this.settlement.complete(job.name, record, message, performance.now() - started);
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
}
