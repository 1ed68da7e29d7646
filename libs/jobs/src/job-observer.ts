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
  /** `completed`; `retried` (it will run again); `dead-lettered` (failed for good). */
  outcome: 'completed' | 'retried' | 'dead-lettered';
  attempt: number;
  durationMs: number;
}

/** Watches jobs for metrics (`job_enqueued_total`, `job_completed_total`, `job_duration_seconds`). */
export interface JobObserver {
  jobQueued?(event: JobQueuedEvent): void;
  jobFinished?(event: JobFinishedEvent): void;
}
