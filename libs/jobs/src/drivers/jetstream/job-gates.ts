import type { BerthLogger } from '@berth/logger';
import type { Messaging, ReceivedMessage } from '@berth/messaging';
import type { RegisteredJob } from '../../discovery/job-registry';
import { JobCancelledError } from '../../errors';
import type { JobRecord } from '../../job-record';
import type { ResolvedQueueOptions } from '../../job-options';
import type { CancellationWatch } from '../cancellations';
import type { JobLocation } from '../deduplication-registry';
import type { KeyLimit } from './kv-key-slots';
import type { KeyedRateLimit } from './kv-rate-limits';
import { PARKED_JOBS_STREAM_NAME } from './parked-jobs-stream';
import { publishScheduledJob } from './publish-scheduled-job';
import type { JobInfrastructure } from './job-infrastructure';

/** One job in a worker's hands, on its way to an attempt. */
export interface GatedJob {
  job: RegisteredJob;
  record: JobRecord;
  message: ReceivedMessage;
  stream: string;
}

/** What a gate decides: run (on to the next gate), park or delay (set aside, its message acked), or drop. */
export type GateVerdict = 'run' | 'park' | 'delay' | { drop: JobCancelledError };

/** How a job's passage ended, told to every gate that admitted it. */
export type GateOutcome = 'completed' | 'failed' | 'cancelled' | 'park' | 'delay';

/**
 * One admission step of a job. `admit` decides (and does what setting the job aside takes: storing it parked or
 * delayed); `release` gives back what an admitted job holds once its passage ended; `renew` extends what it holds
 * while it runs. Gates of stage `admission` run for every job in hand, outside the worker's slots; gates of stage
 * `slot` run in the job's slot, just before its attempt.
 */
export interface JobGate {
  readonly name: string;
  readonly stage: 'admission' | 'slot';
  admit(gated: GatedJob): Promise<GateVerdict>;
  release?(gated: GatedJob, outcome: GateOutcome): Promise<void> | void;
  renew?(gated: GatedJob): Promise<void>;
  /** Whether the admitted job holds something with a lease here (then `renew` runs while the attempt does). */
  holdsLease?(gated: GatedJob): boolean;
}

/** What the gates of one queue's worker share: its KV handles (in `infrastructure`), settings and logger. */
export interface JobGateOptions {
  queue: string;
  settings: ResolvedQueueOptions;
  infrastructure: JobInfrastructure;
  messaging: Messaging;
  logger: BerthLogger;
  cancellations: () => CancellationWatch | undefined;
  /** Slot releases under way; the worker's `stop` waits for them. */
  releasing: Set<Promise<void>>;
}

/** The job's per-key concurrency: given to `add`, else from `@Process`; undefined when not limited. */
export function keyLimitOf(job: RegisteredJob | undefined, record: JobRecord): KeyLimit | undefined {
  if (record.concurrency) return record.concurrency;
  if (!job?.concurrency) return undefined;
  const key = job.concurrency.key(record.data);
  return typeof key === 'string' && key.length > 0 ? { key, limit: job.concurrency.limit } : undefined;
}

/** The queue's rate limit and the job's per-key one (given to `add`, else from `@Process`). */
export function rateLimitsOf(settings: ResolvedQueueOptions, job: RegisteredJob, record: JobRecord): KeyedRateLimit[] {
  const limits: KeyedRateLimit[] = [];
  if (settings.rateLimit) limits.push(settings.rateLimit);
  if (record.rateLimit) limits.push(record.rateLimit);
  else if (job.rateLimit) {
    const key = job.rateLimit.key(record.data);
    if (typeof key === 'string' && key.length > 0)
      limits.push({ key, limit: job.rateLimit.limit, perMs: job.rateLimit.perMs });
  }
  return limits;
}

/** The job's attempts before this delivery, as a copy of it stored elsewhere carries them. */
const waiting = ({ record, message }: GatedJob): JobRecord => ({
  ...record,
  attemptsMade: record.attemptsMade + message.deliveryCount - 1,
});

/** The side effects gates share: where a set-aside job went, and freeing what a job holds. */
export class GateActions {
  constructor(private readonly options: JobGateOptions) {}

  /** A singleton job waits again at `location` (a retry, a rate limit, a parked slot): its key stays held. */
  async singletonWaitsAt({ record, message, stream }: GatedJob, location?: JobLocation): Promise<void> {
    if (record.singletonKey === undefined) return;
    await this.options.infrastructure.singletons
      .waitAt(
        this.options.queue,
        record.singletonKey,
        record.id,
        location ?? { stream, seq: message.streamSequence, scheduled: false },
      )
      .catch((error: unknown) =>
        this.options.logger.warn({ err: error }, 'Could not record where a singleton job waits; held for its lease'),
      );
  }

  /** Frees the job's singleton key (completed, cancelled, dead-lettered); if this fails, its lease runs out. */
  async releaseSingleton(record: JobRecord): Promise<void> {
    if (record.singletonKey === undefined) return;
    await this.options.infrastructure.singletons
      .release(this.options.queue, record.singletonKey, record.id)
      .catch((error: unknown) =>
        this.options.logger.warn(
          { err: error, singletonKey: record.singletonKey },
          'Could not free a singleton key; it frees when its lease runs out',
        ),
      );
  }

  /** Moves the job's deduplication id to where it waits now (`what` names the move in the warning). */
  async relocateDeduplication(record: JobRecord, location: JobLocation, what: string): Promise<void> {
    if (record.deduplicationId === undefined) return;
    await this.options.infrastructure.deduplication
      .relocate(this.options.queue, record.deduplicationId, record.id, location)
      .catch((error: unknown) => this.options.logger.warn({ err: error }, `Could not record where ${what} went`));
  }

  async releaseKey(limit: KeyLimit, record: JobRecord): Promise<void> {
    try {
      await this.options.infrastructure.keySlots.release(
        this.options.queue,
        limit,
        record.id,
        this.options.settings.ackWaitMs,
      );
    } catch (error) {
      // The slot frees itself when its lease runs out; parked jobs of the key wait for the next release.
      this.options.logger.warn({ err: error, concurrencyKey: limit.key }, 'Could not release a concurrency slot');
    }
  }

  releaseKeyInBackground(limit: KeyLimit, record: JobRecord): void {
    const releasing = this.releaseKey(limit, record).finally(() => this.options.releasing.delete(releasing));
    this.options.releasing.add(releasing);
  }
}

/**
 * The gates of a queue, in order: cancelled? superseded (debounce)? a key slot (else parked)? the singleton key
 * (else dropped)? then, in the slot, a start of each rate limit (else delayed).
 */
export function createJobGates(options: JobGateOptions, actions: GateActions): JobGate[] {
  const { queue, infrastructure, logger, settings } = options;
  const leaseMs = settings.ackWaitMs;
  const cancel: JobGate = {
    name: 'cancel',
    stage: 'admission',
    async admit({ record }) {
      const cancelled = options.cancellations()?.get(record.id);
      return cancelled ? { drop: new JobCancelledError(record.id, cancelled.reason) } : 'run';
    },
  };
  const debounce: JobGate = {
    name: 'debounce',
    stage: 'admission',
    async admit({ record }) {
      if (
        record.debounceKey === undefined ||
        (await infrastructure.windows.isLatest(queue, record.debounceKey, record.id))
      )
        return 'run';
      return {
        drop: new JobCancelledError(record.id, `superseded by a later job of debounce key ${record.debounceKey}`),
      };
    },
    async release({ record }, outcome) {
      if (outcome !== 'completed' || record.debounceKey === undefined) return;
      await infrastructure.windows
        .settleDebounce(queue, record.debounceKey, record.id)
        .catch((error: unknown) => logger.warn({ err: error }, 'Could not clear a debounce key'));
    },
  };
  const keySlot: JobGate = {
    name: 'key-slot',
    stage: 'admission',
    async admit(gated) {
      const limit = keyLimitOf(gated.job, gated.record);
      if (!limit || (await infrastructure.keySlots.acquire(queue, limit, gated.record.id, leaseMs))) return 'run';
      const { record, message, stream } = gated;
      const { seq } = await infrastructure.keySlots.park(
        queue,
        gated.job.name,
        limit,
        waiting(gated),
        `park:${record.id}:${stream}:${message.streamSequence}`,
        leaseMs,
      );
      logger.debug(
        { concurrencyKey: limit.key },
        `Job ${record.id} waits for a slot of key ${limit.key} (limit ${limit.limit})`,
      );
      const location = { stream: PARKED_JOBS_STREAM_NAME, seq, scheduled: true };
      await actions.singletonWaitsAt(gated, location);
      await actions.relocateDeduplication(record, location, 'a parked job');
      return 'park';
    },
    // Released in the background: the job's message is acked without waiting for the group commit that frees the
    // slot (held a few milliseconds longer only makes the limit stricter; a release lost with the process frees at
    // its lease's end, and the sweep wakes what is parked behind it).
    release({ job, record }) {
      const limit = keyLimitOf(job, record);
      if (limit) actions.releaseKeyInBackground(limit, record);
    },
    holdsLease: ({ job, record }) => keyLimitOf(job, record) !== undefined,
    async renew({ job, record }) {
      const limit = keyLimitOf(job, record);
      if (limit)
        await infrastructure.keySlots
          .renew(queue, limit, record.id, leaseMs)
          .catch((error: unknown) => logger.warn({ err: error }, 'Could not renew a concurrency slot'));
    },
  };
  // A singleton job that finds its key held by another live job (added after this job's worker died and its lease
  // ran out) is dropped like a cancelled job: never two of a key at once.
  const singleton: JobGate = {
    name: 'singleton',
    stage: 'admission',
    async admit({ record }) {
      const key = record.singletonKey;
      if (key === undefined) return 'run';
      const held = await infrastructure.singletons.take(queue, key, record.id, leaseMs);
      return held.held
        ? 'run'
        : { drop: new JobCancelledError(record.id, `singleton key ${key} is held by job ${held.jobId}`) };
    },
    async release(gated, outcome) {
      if (outcome === 'completed') await actions.releaseSingleton(gated.record);
      else if (outcome === 'failed') await actions.singletonWaitsAt(gated);
    },
    holdsLease: ({ record }) => record.singletonKey !== undefined,
    async renew({ record }) {
      if (record.singletonKey !== undefined)
        await infrastructure.singletons
          .renew(queue, record.singletonKey, record.id, leaseMs)
          .catch((error: unknown) => logger.warn({ err: error }, 'Could not renew the lease of a singleton key'));
    },
  };
  // A job admitted reserves its key's next block of starts while it waits for a slot, so that the take in the slot
  // finds the block in this process instead of waiting for a write (a block is counted for as long as it may be used).
  const ratePrefetch: JobGate = {
    name: 'rate-block',
    stage: 'admission',
    admit(gated) {
      for (const limit of rateLimitsOf(settings, gated.job, gated.record))
        infrastructure.rateLimits.prepare(queue, limit);
      return Promise.resolve('run');
    },
  };
  // Taken in the worker's slot, just before the attempt, since the limit counts starts: taken early, a start would
  // leave the window while its job still waits for a slot.
  const rate: JobGate = {
    name: 'rate',
    stage: 'slot',
    async admit(gated) {
      for (const limit of rateLimitsOf(settings, gated.job, gated.record)) {
        const decision = await infrastructure.rateLimits.take(queue, limit);
        if (decision.allowed) continue;
        await delayForRate(options, actions, gated, limit, decision.retryAt);
        return 'delay';
      }
      return 'run';
    },
  };
  return [cancel, debounce, keySlot, singleton, ratePrefetch, rate];
}

/** Stores a job over its rate limit as a delayed job due when it may start (its attempts so far travel with it). */
async function delayForRate(
  options: JobGateOptions,
  actions: GateActions,
  gated: GatedJob,
  rate: KeyedRateLimit,
  retryAt: number,
): Promise<void> {
  const { record, message, stream } = gated;
  const due = new Date(retryAt).toISOString();
  const ack = await publishScheduledJob(
    options.messaging.js,
    options.queue,
    gated.job.name,
    waiting(gated),
    new Date(retryAt),
    `rate:${record.id}:${stream}:${message.streamSequence}`,
    `rate-limit ${rate.key ?? '(queue)'}`,
  );
  options.logger.debug(
    { rateKey: rate.key, retryAt: due },
    `Job ${record.id} over the rate limit of ${rate.key ?? 'its queue'}: waits until ${due}`,
  );
  const location = { stream: ack.stream, seq: ack.seq, scheduled: true };
  await actions.singletonWaitsAt(gated, location);
  await actions.relocateDeduplication(record, location, 'a rate-limited job');
}
