import { exponentialBackoff, type RetryPolicy } from '@berth/messaging';
import { PRIORITY_LEVELS } from './names';

/** What `add` accepts besides the job's name and data. */
export interface AddJobOptions {
  /** Retries after the first attempt; the queue's default (3) when unset. `0` runs the job once. */
  retryLimit?: number;
  /** Delays the first run by at least this many ms (the job waits in JetStream, not in memory). */
  delayInMilliseconds?: number;
  /**
   * Queues the job once even when many callers ask for it: while a job of this queue with this id waits, runs or
   * retries, adding another one does nothing (the call returns the existing job's id). Once that job completes or
   * is dead-lettered, the id is free again.
   */
  deduplicationId?: string;
  /**
   * Longest one attempt may run, in ms. At the deadline the handler's `signal` (in its `JobInfo`) fires with a
   * `JobTimeoutError` and the attempt fails: retried with backoff, or dead-lettered after the last attempt. Wins
   * over `@Process(name, { timeoutMs })` and the queue's `timeoutMs`; unset there too, an attempt has no deadline.
   */
  timeoutMs?: number;
  /**
   * Per-key concurrency of this job: at most `limit` jobs with this `key` (a workspace id, a tenant) run at once,
   * across every worker and replica; the others wait (parked, holding no worker) and other keys run meanwhile.
   * Wins over `@Process(name, { concurrency })`.
   */
  concurrency?: KeyConcurrency;
  /**
   * Per-key rate limit of this job: at most `limit` jobs with this `key` start in any `perMs`, across every worker
   * and replica; a job over it waits (as a delayed job, holding no worker) and is not failed. Wins over
   * `@Process(name, { rateLimit })`. The queue's own `rateLimit` applies as well.
   */
  rateLimit?: KeyRateLimit;
  /**
   * Throttle: the first job added with this `key` runs, and every other added within `ms` after it is dropped
   * (`add` returns the first job's id with `dropped: 'throttled'`). Across every producer (a KV window).
   */
  throttle?: { key: string; ms: number };
  /**
   * Debounce: the job waits `ms`; a job added with the same `key` meanwhile supersedes it (it is dropped when it
   * comes due) and waits `ms` itself, so only the last job of a burst runs, `ms` after the burst. Replaces
   * `delayInMilliseconds`.
   */
  debounce?: { key: string; ms: number };
  /**
   * Singleton: at most one job of this queue with this `key` waits or runs at a time. Adding one while another is
   * waiting, running or between retries stores nothing and returns that job's id with `dropped: 'singleton'`. The
   * key is free again once the job completes, fails for good or is cancelled, or one lease (`ackWaitMs`) after its
   * worker died. Unlike `deduplicationId`, the key is held by the job's lease while it runs.
   */
  singleton?: { key: string };
  /**
   * Priority, 1 (most urgent) to 10, as in BullMQ: when a worker's slot frees, it takes a job without priority
   * first, then priority 1, then 2… Only on queues whose workers set `priorities: true` in their queue options
   * (`add` throws otherwise, rather than store a job no worker would read). Not preemptive: running jobs finish.
   */
  priority?: number;
  /**
   * Fair queueing: jobs of one queue added with a `fair.key` (a workspace, a tenant) are served round-robin between
   * keys, a key of `weight` w (default 1, at most 100) getting w turns to another's one, so a key with 10,000 jobs
   * waiting does not hold up one with 10. `add` throws if no worker of the queue serves fairness (queue option
   * `fairness`, on by default). Not with `delayInMilliseconds` or `debounce` (a delayed job runs when due).
   *
   * Keyed jobs are fair by default: a job added with a `concurrency` key and no `fair` is served as
   * `fair: { key: <that key> }` when the queue's workers serve fairness (else in arrival order), unless it is
   * delayed, debounced or a singleton. `fair: false` opts a job out: it is served in arrival order.
   */
  fair?: { key: string; weight?: number } | false;
}

/** A per-key rate limit, as `add` takes it. */
export interface KeyRateLimit {
  key: string;
  limit: number;
  perMs: number;
}

/** A per-key concurrency limit, as `add` takes it. */
export interface KeyConcurrency {
  key: string;
  limit: number;
}

/** What `add` resolves with, once the job is durably stored (or found to be a duplicate). */
export interface AddedJob {
  /** The job's id; for a duplicate, the id of the job already queued. */
  id: string;
  /** True when a job with the same `deduplicationId` was already waiting, running or retrying. */
  deduplicated: boolean;
  /**
   * Set when the job was not stored: `throttled`, `id` is then the job that opened the window; `singleton`, `id` is
   * then the job of the same singleton key already waiting or running.
   */
  dropped?: 'throttled' | 'singleton';
}

/** The wait between attempts: `baseDelayMs · 2^(n−1)` after the n-th failure, capped, with jitter. */
export interface BackoffOptions {
  /** Wait after the first failure, in ms. */
  baseDelayMs: number;
  /** Upper bound of any wait, in ms. */
  maxDelayMs: number;
  /** 0 to 1: each wait is drawn in `[d·(1−jitter), d]`, so jobs that failed together don't retry together. */
  jitter: number;
}

/** Settings of one queue; every field has a default (see {@link DEFAULT_QUEUE_OPTIONS}). */
export interface QueueOptions {
  /** Jobs of this queue one worker process runs at once. */
  concurrency?: number;
  /** Default retries of this queue's jobs when `add` gives none. */
  retryLimit?: number;
  backoff?: Partial<BackoffOptions>;
  /** How long a job may run without a heartbeat before JetStream hands it to another worker (a crash). */
  ackWaitMs?: number;
  /** Most jobs handed out and not yet finished, across every worker of the queue. */
  maxAckPending?: number;
  /** Default deadline of one attempt of this queue's jobs, in ms (see {@link AddJobOptions.timeoutMs}); unset: none. */
  timeoutMs?: number;
  /** Queue-wide rate limit: at most `limit` job starts of the queue in any `perMs`, across every worker. */
  rateLimit?: { limit: number; perMs: number };
  /**
   * Deaths of a worker while running one message (a crash, an OOM kill, a stall past the lease) after which the
   * message goes to the dead letters with reason `poison` instead of being handed to the next worker (default 3).
   */
  poisonLimit?: number;
  /**
   * Serve `add(…, { priority })` on this queue (default false): the workers then also pull from one consumer per
   * priority band (`jobs-<queue>~p1` … `~p10`), in order of urgency and only for their free slots, so across every
   * worker a job waiting is started before any less urgent one still waiting.
   */
  priorities?: boolean;
  /**
   * Serve fair jobs on this queue (default true): one worker at a time (a lease) feeds the queue's fair jobs, those
   * added with `fair` and keyed jobs (see `AddJobOptions.fair`), into `JOBS` key after key, keeping only a few
   * messages waiting there. `false` turns the feeder off: keyed jobs are then served in arrival order, and `add`
   * with `fair` throws.
   */
  fairness?: boolean;
}

/** {@link QueueOptions} with every field filled in. */
export interface ResolvedQueueOptions {
  concurrency: number;
  retryLimit: number;
  backoff: BackoffOptions;
  ackWaitMs: number;
  maxAckPending: number;
  timeoutMs?: number;
  rateLimit?: { limit: number; perMs: number };
  poisonLimit: number;
  priorities: boolean;
  fairness: boolean;
}

/**
 * Berth's defaults: 8 jobs at once per worker process; 3 retries (4 attempts) waiting about 5 s, 10 s and 20 s
 * (±20 % jitter), enough to ride out a restart or a short outage; a job lease of 30 s kept alive while the job
 * runs. Unlike BullMQ (1 attempt, concurrency 1), a failed job is retried unless you say otherwise.
 */
export const DEFAULT_QUEUE_OPTIONS: ResolvedQueueOptions = {
  concurrency: 8,
  retryLimit: 3,
  backoff: { baseDelayMs: 5000, maxDelayMs: 60 * 60 * 1000, jitter: 0.2 },
  ackWaitMs: 30000,
  maxAckPending: 1000,
  poisonLimit: 3,
  priorities: false,
  fairness: true,
};

/** Fills a queue's options from the module's defaults, then Berth's. */
export function resolveQueueOptions(
  defaults: QueueOptions | undefined,
  queue: QueueOptions | undefined,
): ResolvedQueueOptions {
  const resolved: ResolvedQueueOptions = {
    concurrency: queue?.concurrency ?? defaults?.concurrency ?? DEFAULT_QUEUE_OPTIONS.concurrency,
    retryLimit: queue?.retryLimit ?? defaults?.retryLimit ?? DEFAULT_QUEUE_OPTIONS.retryLimit,
    backoff: { ...DEFAULT_QUEUE_OPTIONS.backoff, ...defaults?.backoff, ...queue?.backoff },
    ackWaitMs: queue?.ackWaitMs ?? defaults?.ackWaitMs ?? DEFAULT_QUEUE_OPTIONS.ackWaitMs,
    maxAckPending: queue?.maxAckPending ?? defaults?.maxAckPending ?? DEFAULT_QUEUE_OPTIONS.maxAckPending,
    timeoutMs: queue?.timeoutMs ?? defaults?.timeoutMs,
    rateLimit: queue?.rateLimit ?? defaults?.rateLimit,
    poisonLimit: queue?.poisonLimit ?? defaults?.poisonLimit ?? DEFAULT_QUEUE_OPTIONS.poisonLimit,
    priorities: queue?.priorities ?? defaults?.priorities ?? DEFAULT_QUEUE_OPTIONS.priorities,
    fairness: queue?.fairness ?? defaults?.fairness ?? DEFAULT_QUEUE_OPTIONS.fairness,
  };
  if (!Number.isInteger(resolved.concurrency) || resolved.concurrency < 1)
    throw new Error(`concurrency must be a positive integer, got ${resolved.concurrency}`);
  assertRetryLimit(resolved.retryLimit);
  if (resolved.ackWaitMs < 1000) throw new Error(`ackWaitMs must be at least 1000, got ${resolved.ackWaitMs}`);
  if (resolved.timeoutMs !== undefined) assertTimeout(resolved.timeoutMs);
  if (resolved.rateLimit !== undefined) assertRate(resolved.rateLimit);
  if (!Number.isInteger(resolved.poisonLimit) || resolved.poisonLimit < 1)
    throw new Error(`poisonLimit must be a positive integer, got ${resolved.poisonLimit}`);
  return resolved;
}

/** Throws unless the options of one `add` call make sense. */
export function assertAddJobOptions(options: AddJobOptions): void {
  if (options.retryLimit !== undefined) assertRetryLimit(options.retryLimit);
  const delay = options.delayInMilliseconds;
  if (delay !== undefined && (!Number.isFinite(delay) || delay < 0))
    throw new Error(`delayInMilliseconds must be a number >= 0, got ${delay}`);
  if (
    options.deduplicationId !== undefined &&
    (typeof options.deduplicationId !== 'string' ||
      options.deduplicationId.length === 0 ||
      options.deduplicationId.length > 512)
  ) {
    throw new Error('deduplicationId must be a non-empty string of at most 512 characters');
  }
  if (options.timeoutMs !== undefined) assertTimeout(options.timeoutMs);
  if (options.concurrency !== undefined) assertKeyConcurrency(options.concurrency);
  for (const window of [options.throttle, options.debounce]) {
    if (window === undefined) continue;
    assertKeyConcurrency({ key: window.key, limit: 1 });
    if (!Number.isInteger(window.ms) || window.ms < 1 || window.ms > 24 * 60 * 60 * 1000)
      throw new Error(`throttle.ms and debounce.ms must be integers from 1 to 86400000, got ${window.ms}`);
  }
  if (
    options.priority !== undefined &&
    (!Number.isInteger(options.priority) || options.priority < 1 || options.priority > PRIORITY_LEVELS)
  )
    throw new Error(`priority must be an integer from 1 to ${PRIORITY_LEVELS}, got ${options.priority}`);
  if (options.fair !== undefined && options.fair !== false) {
    if (typeof options.fair !== 'object' || options.fair === null)
      throw new Error('fair must be { key, weight? } or false');
    assertKeyConcurrency({ key: options.fair.key, limit: 1 });
    const weight = options.fair.weight;
    if (weight !== undefined && (!Number.isInteger(weight) || weight < 1 || weight > 100))
      throw new Error(`fair.weight must be an integer from 1 to 100, got ${weight}`);
    if (options.delayInMilliseconds || options.debounce)
      throw new Error('fair can not be combined with delayInMilliseconds or debounce');
  }
  if (options.singleton !== undefined) assertKeyConcurrency({ key: options.singleton.key, limit: 1 });
  if (options.rateLimit !== undefined) {
    assertKeyConcurrency({ key: options.rateLimit.key, limit: 1 });
    assertRate(options.rateLimit);
  }
}

/** Throws unless a rate is a positive integer count over 1 ms to 24 h. */
export function assertRate(rate: { limit: number; perMs: number }): void {
  if (!Number.isInteger(rate.limit) || rate.limit < 1 || rate.limit > 100000)
    throw new Error(`rateLimit.limit must be an integer from 1 to 100000, got ${rate.limit}`);
  if (!Number.isInteger(rate.perMs) || rate.perMs < 1 || rate.perMs > 24 * 60 * 60 * 1000)
    throw new Error(`rateLimit.perMs must be an integer from 1 to 86400000, got ${rate.perMs}`);
}

/** Throws unless a per-key concurrency limit is a non-empty key (at most 256 characters) and a positive integer. */
export function assertKeyConcurrency(concurrency: KeyConcurrency): void {
  if (typeof concurrency.key !== 'string' || concurrency.key.length === 0 || concurrency.key.length > 256)
    throw new Error('concurrency.key must be a non-empty string of at most 256 characters');
  assertKeyLimit(concurrency.limit);
}

/** Throws unless `limit` is an integer from 1 to 10,000. */
export function assertKeyLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > 10000)
    throw new Error(`concurrency.limit must be an integer from 1 to 10000, got ${limit}`);
}

/** Throws unless `timeoutMs` is a whole number of ms from 1 to 24 h. */
export function assertTimeout(timeoutMs: number): void {
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 24 * 60 * 60 * 1000)
    throw new Error(`timeoutMs must be an integer from 1 to 86400000, got ${timeoutMs}`);
}

function assertRetryLimit(retryLimit: number): void {
  if (!Number.isInteger(retryLimit) || retryLimit < 0 || retryLimit > 1000)
    throw new Error(`retryLimit must be an integer from 0 to 1000, got ${retryLimit}`);
}

/** The retry policy of one job: `retryLimit + 1` attempts, waits from the queue's backoff. */
export function jobRetryPolicy(backoff: BackoffOptions, retryLimit: number, random?: () => number): RetryPolicy {
  return exponentialBackoff({
    maxAttempts: retryLimit + 1,
    baseDelayMs: backoff.baseDelayMs,
    maxDelayMs: backoff.maxDelayMs,
    jitter: backoff.jitter,
    random,
  });
}
