import { systemClock } from '@berth/contract';
import { CompletionRecorder } from '../../completed-jobs/record-completed-job';
import { decideRetry, describeError, type GiveUpReason, type ReceivedMessage } from '@berth/messaging';
import type { DeadLetterReason } from '../../dead-letters/dead-letter';
import { jobDeadLetter, unreadableDeadLetter } from '../../dead-letters/job-dead-letter';
import { writeDeadLetter } from '../../dead-letters/write-dead-letter';
import type { RegisteredJob } from '../../discovery/job-registry';
import { type JobCancelledError, PoisonMessageError, UnknownJobError } from '../../errors';
import type { JobRecord } from '../../job-record';
import { jobRetryPolicy } from '../../job-options';
import { DELAYED_JOBS_STREAM_NAME } from '../../names';
import { type GateActions, keyLimitOf } from './job-gates';
import type { JetStreamQueueWorkerOptions, JobMessages } from './job-messages';

/** How a job's passage ends outside its attempt: dropped, retried as a job of a batch, dead-lettered. */
export class JobSettlement {
  private readonly completions: CompletionRecorder;

  constructor(
    private readonly options: JetStreamQueueWorkerOptions,
    private readonly actions: GateActions,
    private readonly messages: JobMessages,
  ) {
    this.completions = new CompletionRecorder({
      js: options.messaging.js,
      logger: options.logger,
      observer: options.observer,
    });
  }

  async dropCancelled(record: JobRecord, error: JobCancelledError): Promise<void> {
    this.options.logger.info({ jobId: record.id, cancelReason: error.reason }, `Job ${record.id} cancelled: dropped`);
    await this.releaseDeduplication(record);
    await this.actions.releaseSingleton(record);
  }

  async giveUp(message: ReceivedMessage, error: unknown, reason: GiveUpReason): Promise<void> {
    const parsed = this.messages.parse(message);
    const origin = { queue: this.options.queue, name: parsed.name, message };
    if ('invalid' in parsed) {
      const ack = await writeDeadLetter(
        this.options.messaging.js,
        unreadableDeadLetter(origin, error, this.options.clock),
      );
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

  async deadLetter(
    name: string,
    record: JobRecord,
    message: ReceivedMessage,
    error: unknown,
    reason: DeadLetterReason,
    attempts: number,
  ): Promise<void> {
    const ack = await writeDeadLetter(
      this.options.messaging.js,
      jobDeadLetter({ queue: this.options.queue, name, message }, record, error, reason, attempts, this.options.clock),
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

  /**
   * A job whose attempt succeeded: its record is stored in `JOBS_COMPLETED` (never failing the job), then its
   * deduplication id released; the caller acks the message after that.
   */
  async complete(name: string, record: JobRecord, message: ReceivedMessage, durationMs: number): Promise<void> {
    const { queue } = this.options;
    await this.completions.record({
      queue,
      name,
      jobId: record.id,
      data: record.data,
      attempt: record.attemptsMade + message.deliveryCount,
      retryLimit: record.retryLimit,
      addedAt: record.addedAt ?? null,
      completedAt: (this.options.clock ?? systemClock).now().toISOString(),
      durationMs: Math.round(durationMs),
      outcome: 'completed',
      ...(record.replayOf ? { replayOf: record.replayOf } : {}),
    });
    await this.releaseDeduplication(record);
  }

  /** A delayed job that became due, or a retried one, has a new message: the deduplication entry follows it. */
  async relocateIfMoved(record: JobRecord, message: ReceivedMessage, stream: string): Promise<void> {
    if (record.deduplicationId === undefined || stream !== DELAYED_JOBS_STREAM_NAME) return;
    await this.options.infrastructure.deduplication
      .relocate(this.options.queue, record.deduplicationId, record.id, {
        stream,
        seq: message.streamSequence,
        scheduled: false,
      })
      .catch((error: unknown) => this.options.logger.warn({ err: error }, 'Could not record where a delayed job went'));
  }

  async releaseDeduplication(record: JobRecord): Promise<void> {
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

  async settleBatchedFailure(
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
}
