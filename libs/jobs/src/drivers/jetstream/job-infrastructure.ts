import { deadLettersStream, delayedJobsStream, ensureStream, jobsStream, type Messaging, type StreamSizing } from '@berth/messaging';
import type { DeduplicationRegistry } from '../deduplication-registry';
import { openKvDeduplicationRegistry, type KvDeduplicationOptions } from './kv-deduplication-registry';

/** What jobs need in JetStream besides the connection. */
export interface JobInfrastructure {
  deduplication: DeduplicationRegistry;
}

/** Options for {@link provisionJobInfrastructure}. */
export interface JobInfrastructureOptions {
  /** Create or update the `JOBS`, `JOBS_DELAYED` and `DEAD_LETTERS` streams (default true; false when an operator owns them). */
  provisionStreams?: boolean;
  sizing?: StreamSizing;
  deduplication?: KvDeduplicationOptions;
}

/**
 * Makes sure the `JOBS`, `JOBS_DELAYED` and `DEAD_LETTERS` streams and the deduplication KV bucket exist. Idempotent, safe from every replica at every start.
 */
export async function provisionJobInfrastructure(messaging: Messaging, options: JobInfrastructureOptions = {}): Promise<JobInfrastructure> {
  if (options.provisionStreams !== false) {
    await ensureStream(messaging.jsm, jobsStream(options.sizing));
    await ensureStream(messaging.jsm, delayedJobsStream(options.sizing));
    await ensureStream(messaging.jsm, deadLettersStream(options.sizing));
  }
  const deduplication = await openKvDeduplicationRegistry(messaging.js, messaging.jsm, { replicas: options.sizing?.replicas, ...options.deduplication });
  return { deduplication };
}
