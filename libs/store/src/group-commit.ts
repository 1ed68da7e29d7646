/** How one operation of a group ended: its result, or the error that failed it alone. */
export type GroupOutcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Pending<Op, R> {
  op: Op;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/** Options for {@link GroupCommit}. */
export interface GroupCommitOptions<Op, R> {
  /** Writes one group; answers one outcome per operation, in order. A rejection fails the whole group. */
  write: (ops: readonly Op[]) => Promise<GroupOutcome<R>[]>;
  /** The most operations one write carries. */
  maxBatch: number;
  /**
   * The key an operation writes: two operations with the same key never share a write (the later one waits for
   * the next), so each sees the other's effect as if they had run one at a time.
   */
  keyOf?: (op: Op) => unknown;
}

/**
 * Group commit: operations submitted while a write is in flight leave together in the next one, and each caller's
 * promise settles with its own outcome. One write at a time, so a burst costs the store a few round trips instead
 * of one each; a lone operation is written at once, so an idle process adds no latency.
 */
export class GroupCommit<Op, R> {
  private queue: Pending<Op, R>[] = [];
  private writing = false;

  constructor(private readonly options: GroupCommitOptions<Op, R>) {}

  /** Queues `op`; resolves with its outcome once the write carrying it has answered. */
  submit(op: Op): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.queue.length > 0) await this.writeGroup(this.takeGroup());
    } finally {
      this.writing = false;
    }
  }

  /** The next group: queued operations in order, up to `maxBatch`, at most one per key. */
  private takeGroup(): Pending<Op, R>[] {
    const { keyOf, maxBatch } = this.options;
    if (!keyOf) return this.queue.splice(0, maxBatch);
    const group: Pending<Op, R>[] = [];
    const rest: Pending<Op, R>[] = [];
    const keys = new Set<unknown>();
    for (const pending of this.queue) {
      const key = keyOf(pending.op);
      if (group.length < maxBatch && !keys.has(key)) {
        keys.add(key);
        group.push(pending);
      } else rest.push(pending);
    }
    this.queue = rest;
    return group;
  }

  private async writeGroup(group: Pending<Op, R>[]): Promise<void> {
    try {
      const outcomes = await this.options.write(group.map((pending) => pending.op));
      group.forEach((pending, index) => {
        const outcome = outcomes[index];
        if (outcome.ok) pending.resolve(outcome.value);
        else pending.reject(outcome.error);
      });
    } catch (error) {
      group.forEach((pending) => pending.reject(error));
    }
  }
}
