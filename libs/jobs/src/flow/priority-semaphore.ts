/**
 * Runs at most `permits` tasks at once; a task waiting for a permit is started before every waiting task of a
 * larger `rank` (0 first), and in arrival order within a rank. A worker ranks jobs by priority: when one of its
 * slots frees, the most urgent job it holds takes it. With every task at one rank it is a plain FIFO semaphore.
 */
export class PrioritySemaphore {
  private running = 0;
  private waitingCount = 0;
  /** Waiters per rank, each in arrival order. */
  private readonly waiting = new Map<number, (() => void)[]>();
  /** The ranks with waiters, ascending. */
  private ranks: number[] = [];

  constructor(private readonly permits: number) {}

  /** Tasks running now. */
  get active(): number {
    return this.running;
  }

  /** Tasks waiting for a permit. */
  get queued(): number {
    return this.waitingCount;
  }

  /** Runs `task` when a permit is free for it, and frees the permit when the task settles. */
  async run<T>(task: () => Promise<T>, rank = 0): Promise<T> {
    if (this.running >= this.permits) await new Promise<void>((resolve) => this.enqueue(rank, resolve));
    else this.running += 1;
    try {
      return await task();
    } finally {
      const next = this.dequeue();
      if (next) next();
      else this.running -= 1;
    }
  }

  private enqueue(rank: number, resolve: () => void): void {
    const list = this.waiting.get(rank);
    if (list) list.push(resolve);
    else {
      this.waiting.set(rank, [resolve]);
      this.ranks.push(rank);
      this.ranks.sort((a, b) => a - b);
    }
    this.waitingCount += 1;
  }

  private dequeue(): (() => void) | undefined {
    const rank = this.ranks[0];
    if (rank === undefined) return undefined;
    const list = this.waiting.get(rank) as (() => void)[];
    const next = list.shift();
    if (list.length === 0) {
      this.waiting.delete(rank);
      this.ranks.shift();
    }
    this.waitingCount -= 1;
    return next;
  }
}
