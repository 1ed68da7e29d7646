import type { PublishResult } from '@berth/messaging';

/** How {@link JobBatchPublisher} groups jobs into messages. */
export interface BatchingOptions {
  /** Most jobs one message carries (default 100). `1` gives every job its own message. */
  maxJobsPerMessage?: number;
  /** Most body bytes one message carries (default 256 KiB); a bigger job still goes, alone. */
  maxBytesPerMessage?: number;
  /** Publishes of one subject awaiting their PubAck at once (default 2); later jobs gather meanwhile. */
  maxInFlightPerSubject?: number;
}

/** Publishes one message made of encoded job records and resolves with its PubAck. */
export type PublishEncodedJobs = (subject: string, encodedRecords: string[], jobIds: string[]) => Promise<PublishResult>;

interface PendingJob {
  id: string;
  encoded: string;
  resolve: (result: PublishResult) => void;
  reject: (error: unknown) => void;
}

interface SubjectState {
  inFlight: number;
  pending: PendingJob[];
}

/**
 * Group commit for `add`: while a publish to a subject awaits its PubAck, jobs added to that subject gather and
 * leave together in the next message. With `sync_interval: always` every stored message costs an fsync, so one
 * message per burst instead of one per job is what lets a queue take thousands of jobs a second. Nothing is
 * traded for it: each `add` still resolves only after the message holding its job is stored (and fsynced), a
 * lone `add` is sent at once, and each job keeps its own id, retries and dead letter.
 */
export class JobBatchPublisher {
  private readonly subjects = new Map<string, SubjectState>();
  private readonly maxJobs: number;
  private readonly maxBytes: number;
  private readonly maxInFlight: number;

  constructor(private readonly publish: PublishEncodedJobs, options: BatchingOptions = {}) {
    this.maxJobs = Math.max(1, options.maxJobsPerMessage ?? 100);
    this.maxBytes = Math.max(1024, options.maxBytesPerMessage ?? 256 * 1024);
    this.maxInFlight = Math.max(1, options.maxInFlightPerSubject ?? 2);
  }

  /** Queues one encoded job on a subject; resolves with the PubAck of the message that carried it. */
  enqueue(subject: string, jobId: string, encoded: string): Promise<PublishResult> {
    return new Promise<PublishResult>((resolve, reject) => {
      const state = this.subjects.get(subject) ?? { inFlight: 0, pending: [] };
      this.subjects.set(subject, state);
      state.pending.push({ id: jobId, encoded, resolve, reject });
      this.flush(subject, state);
    });
  }

  private flush(subject: string, state: SubjectState): void {
    while (state.inFlight < this.maxInFlight && state.pending.length > 0) {
      const batch = this.takeBatch(state);
      state.inFlight += 1;
      this.publish(subject, batch.map((job) => job.encoded), batch.map((job) => job.id)).then(
        (result) => batch.forEach((job) => job.resolve(result)),
        (error) => batch.forEach((job) => job.reject(error)),
      ).finally(() => {
        state.inFlight -= 1;
        if (state.inFlight === 0 && state.pending.length === 0) this.subjects.delete(subject);
        else this.flush(subject, state);
      });
    }
  }

  private takeBatch(state: SubjectState): PendingJob[] {
    let bytes = 0;
    let count = 0;
    while (count < state.pending.length && count < this.maxJobs) {
      const size = state.pending[count].encoded.length + 1;
      if (count > 0 && bytes + size > this.maxBytes) break;
      bytes += size;
      count += 1;
    }
    return state.pending.splice(0, count);
  }
}
