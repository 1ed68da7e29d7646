import type { DeadLetterReason } from './dead-letters/dead-letter';

/** A job was queued by this process. */
export interface JobQueuedEvent {
  queue: string;
  name: string;
  /** True when `add` found a live job with the same deduplication id and queued nothing. */
  deduplicated: boolean;
}

/** One attempt of a job ended. */
export interface JobFinishedEvent {
  queue: string;
  name: string;
  /**
   * `completed`; `retried` (it will run again); `dead-lettered` (failed for good); `cancelled` (`cancel(jobId)`
   * stopped it, or it was cancelled before it ran).
   */
  outcome: 'completed' | 'retried' | 'dead-lettered' | 'cancelled';
  attempt: number;
  durationMs: number;
}

/** A job was copied to the dead letters, and why. */
export interface JobDeadLetteredEvent {
  queue: string;
  name: string;
  reason: DeadLetterReason;
}

/** A job completed, but its record could not be stored in `JOBS_COMPLETED` (the job itself is settled). */
export interface JobCompletionNotRecordedEvent {
  queue: string;
  name: string;
}

/**
 * Watches jobs for metrics (`job_enqueued_total`, `job_completed_total`, `job_duration_seconds`,
 * `job_dead_lettered_total`, `job_cancelled_total`, `job_completion_not_recorded_total`).
 */
export interface JobObserver {
  jobQueued?(event: JobQueuedEvent): void;
  jobFinished?(event: JobFinishedEvent): void;
  jobDeadLettered?(event: JobDeadLetteredEvent): void;
  jobCompletionNotRecorded?(event: JobCompletionNotRecordedEvent): void;
}
