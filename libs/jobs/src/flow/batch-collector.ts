/** Options for {@link BatchCollector}. */
export interface BatchCollectorOptions<T> {
  /** Most items handed to `flush` at once. */
  size: number;
  /** Longest an item waits for its batch to fill, from the moment the batch's first item came. */
  waitMs: number;
  /** Runs one batch (1 to `size` items, in arrival order); not awaited. */
  flush: (items: T[]) => void;
}

/**
 * Gathers items into batches for a batch job: a batch is flushed as soon as it holds `size` items, or `waitMs` after
 * its first item came, whichever is first. Items that come while a batch runs start the next one.
 */
export class BatchCollector<T> {
  private pending: T[] = [];
  private timer?: ReturnType<typeof setTimeout>;

  constructor(private readonly options: BatchCollectorOptions<T>) {
    if (!Number.isInteger(options.size) || options.size < 1)
      throw new Error(`A batch size must be a positive integer, got ${options.size}`);
    if (!Number.isFinite(options.waitMs) || options.waitMs < 0)
      throw new Error(`A batch waitMs must be a finite number >= 0, got ${options.waitMs}`);
  }

  /** Items waiting for their batch to fill. */
  get waiting(): number {
    return this.pending.length;
  }

  /** Adds an item; flushes its batch when full, else makes sure the batch flushes `waitMs` after its first item. */
  add(item: T): void {
    this.pending.push(item);
    if (this.pending.length >= this.options.size) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.options.waitMs);
  }

  /** Flushes what waits now, in batches of at most `size` (a worker stopping does not wait for `waitMs`). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.pending.length > 0) this.options.flush(this.pending.splice(0, this.options.size));
  }
}
