/** A cancellation as recorded by `cancel(jobId)`. */
export interface CancellationRecord {
  queue: string;
  jobId: string;
  reason?: string;
  /** ISO 8601. */
  cancelledAt: string;
}

/** The cancelled jobs of one queue as one worker sees them, kept current as cancellations arrive. */
export interface CancellationWatch {
  /** The cancellation of this job, if it was cancelled. */
  get(jobId: string): CancellationRecord | undefined;
  /** Calls `listener` when this job is cancelled (at once if it already is); returns the unsubscribe. */
  onCancel(jobId: string, listener: (record: CancellationRecord) => void): () => void;
  stop(): Promise<void>;
}

/** Where cancellations are written and watched. */
export interface Cancellations {
  /** Records that the job must not run, or must stop; every worker of the queue hears of it. */
  cancel(queue: string, jobId: string, reason?: string): Promise<CancellationRecord>;
  /** Starts watching a queue's cancellations; resolves once the cancellations already stored are known. */
  watch(queue: string): Promise<CancellationWatch>;
  /** Cancellations still remembered for a queue (or every queue). */
  list(queue?: string): Promise<CancellationRecord[]>;
}

/** The bookkeeping shared by the watches of both drivers: known cancellations and who waits on them. */
export class CancellationSet implements Omit<CancellationWatch, 'stop'> {
  private readonly records = new Map<string, CancellationRecord>();
  private readonly listeners = new Map<string, Set<(record: CancellationRecord) => void>>();

  add(record: CancellationRecord): void {
    this.records.set(record.jobId, record);
    for (const listener of this.listeners.get(record.jobId) ?? []) listener(record);
  }

  get(jobId: string): CancellationRecord | undefined {
    return this.records.get(jobId);
  }

  onCancel(jobId: string, listener: (record: CancellationRecord) => void): () => void {
    const known = this.records.get(jobId);
    if (known) {
      listener(known);
      return () => undefined;
    }
    const set = this.listeners.get(jobId) ?? new Set();
    set.add(listener);
    this.listeners.set(jobId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(jobId);
    };
  }
}
