/** Runs at most `permits` tasks at once; the others wait their turn in order. */
export class Semaphore {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly permits: number) {}

  /** Tasks running now. */
  get active(): number {
    return this.running;
  }

  /** Runs `task` when a permit is free, and frees it when the task settles. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.permits) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
