import {
  deadLettersStream,
  delayedJobsStream,
  ensureStream,
  jobsStream,
  ServerClock,
  type Messaging,
  type StreamSizing,
} from '@berth/messaging';
import type { Cancellations } from '../cancellations';
import type { DeduplicationRegistry } from '../deduplication-registry';
import { openKvCancellations, type KvCancellationOptions } from './kv-cancellations';
import { openKvDeduplicationRegistry, type KvDeduplicationOptions } from './kv-deduplication-registry';
import { openKvDeliveryLedger, type DeliveryLedger, type KvDeliveryLedgerOptions } from './kv-delivery-ledger';
import { openKvKeySlots, type KeySlots, type KvKeySlotOptions } from './kv-key-slots';
import { openKvJobWindows, type JobWindows, type KvJobWindowOptions } from './kv-job-windows';
import { openKvRateLimits, type KvRateLimitOptions, type RateLimits } from './kv-rate-limits';
import { parkedJobsStream } from './parked-jobs-stream';
import { fairJobsStream } from './fair-jobs-stream';
import { openKvSingletons, type KvSingletonOptions, type Singletons } from './kv-singletons';
import type { Clock } from '@berth/contract';
import { completedJobsStream, type CompletedJobsOptions } from '../../completed-jobs/completed-job';

/** What jobs need in JetStream besides the connection. */
export interface JobInfrastructure {
  deduplication: DeduplicationRegistry;
  cancellations: Cancellations;
  deliveries: DeliveryLedger;
  keySlots: KeySlots;
  rateLimits: RateLimits;
  windows: JobWindows;
  singletons: Singletons;
}

/** Options for {@link provisionJobInfrastructure}. */
export interface JobInfrastructureOptions {
  /** Create or update the job streams (default true; false when an operator owns them). */
  provisionStreams?: boolean;
  sizing?: StreamSizing;
  /** How many completed jobs `JOBS_COMPLETED` keeps per queue, and how long. */
  completedJobs?: CompletedJobsOptions;
  deduplication?: KvDeduplicationOptions;
  cancellations?: KvCancellationOptions;
  deliveries?: KvDeliveryLedgerOptions;
  keySlots?: KvKeySlotOptions;
  rateLimits?: KvRateLimitOptions;
  windows?: KvJobWindowOptions;
  singletons?: KvSingletonOptions;
  /** The clock of every store that stamps or judges time by this process (`systemClock` by default). */
  clock?: Clock;
}

/**
 * Makes sure the `JOBS`, `JOBS_DELAYED`, `DEAD_LETTERS`, `JOBS_PARKED`, `JOBS_FAIR` and `JOBS_COMPLETED` streams
 * and the KV buckets of deduplication ids, cancellations, ended deliveries, key slots, rates, windows and singleton
 * keys exist. Idempotent, safe from every replica at every start.
 */
export async function provisionJobInfrastructure(
  messaging: Messaging,
  options: JobInfrastructureOptions = {},
): Promise<JobInfrastructure> {
  if (options.provisionStreams !== false) {
    await ensureStream(messaging.jsm, jobsStream(options.sizing));
    await ensureStream(messaging.jsm, delayedJobsStream(options.sizing));
    await ensureStream(messaging.jsm, deadLettersStream(options.sizing));
    await ensureStream(messaging.jsm, parkedJobsStream(options.sizing));
    await ensureStream(messaging.jsm, fairJobsStream(options.sizing));
    await ensureStream(messaging.jsm, completedJobsStream(options.sizing, options.completedJobs));
  }
  const replicas = options.sizing?.replicas;
  // One reading of the server's clock for the leases of key slots and the windows of rate limits.
  const clock = new ServerClock();
  const [deduplication, cancellations, deliveries, keySlots, rateLimits, windows, singletons] = await Promise.all([
    openKvDeduplicationRegistry(messaging.js, messaging.jsm, {
      replicas,
      clock: options.clock,
      ...options.deduplication,
    }),
    openKvCancellations(messaging.js, { replicas, clock: options.clock, ...options.cancellations }),
    openKvDeliveryLedger(messaging.js, { replicas, ...options.deliveries }),
    openKvKeySlots(messaging.js, messaging.jsm, { replicas, clock, ...options.keySlots }),
    openKvRateLimits(messaging.js, { replicas, clock, ...options.rateLimits }),
    openKvJobWindows(messaging.js, { replicas, clock: options.clock, ...options.windows }),
    openKvSingletons(messaging.js, messaging.jsm, { replicas, clock: options.clock, ...options.singletons }),
  ]);
  return { deduplication, cancellations, deliveries, keySlots, rateLimits, windows, singletons };
}
