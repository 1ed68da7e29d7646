/** Where a queued job's message is, so a deduplication entry can tell whether its job still exists. */
export interface JobLocation {
  /** `JOBS`, or `JOBS_DELAYED` for a delayed job. */
  stream: string;
  /** Sequence of the message in that stream. */
  seq: number;
  /** True while the message is a delayed job's schedule (the job gets a new message when it is due). */
  scheduled: boolean;
}

/** A deduplication id held for one job, from `claim` until `release`. */
export interface DeduplicationClaim {
  queue: string;
  deduplicationId: string;
  jobId: string;
  /** Revision of the entry as claimed, for compare-and-set updates. */
  revision: number;
}

/** What `claim` found: the id is now held for this job, or another job holds it. */
export type ClaimResult = { claimed: true; claim: DeduplicationClaim } | { claimed: false; existingJobId: string };

/**
 * The in-flight `deduplicationId`s of jobs: an id is held from `add` until its job completes or is dead-lettered.
 * Implementations: JetStream KV (workers in many processes) and memory (the sync driver).
 */
export interface DeduplicationRegistry {
  /** Holds the id for `jobId` unless a live job already holds it (atomic: one of many concurrent callers wins). */
  claim(queue: string, deduplicationId: string, jobId: string): Promise<ClaimResult>;
  /** Records where the claimed job was stored, once it is. */
  confirm(claim: DeduplicationClaim, location: JobLocation): Promise<void>;
  /** Frees a claim whose job could not be stored. */
  abandon(claim: DeduplicationClaim): Promise<void>;
  /** Records a job's new message (a delayed job that became due, a job moved out of a batch to be retried). */
  relocate(queue: string, deduplicationId: string, jobId: string, location: JobLocation): Promise<void>;
  /** Frees the id if `jobId` still holds it (its job completed or was dead-lettered). */
  release(queue: string, deduplicationId: string, jobId: string): Promise<void>;
}
