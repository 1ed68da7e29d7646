/** How many of the latest messages' weights size the next pull. */
const RECENT_MESSAGES = 8;

/**
 * The handler slots of one consumer runner: how many messages it runs and how much work they carry, against its
 * concurrency, and how many messages the next pull may ask for. The pull loop waits here for a free slot; `stop`
 * wakes it.
 */
export class HandlerSlots {
  private running = 0;
  private weightInHand = 0;
  /**
   * The weights of the last {@link RECENT_MESSAGES} messages taken; a pull is sized by the heaviest of them. It starts
   * at the concurrency, and goes back to it whenever the consumer was idle, so the first pull of a burst asks for one
   * message, and pulls grow only once every recent message turned out light.
   */
  private recentWeights: number[];
  private waiter: (() => void) | undefined;
  private readonly idle: (() => void)[] = [];

  constructor(private readonly concurrency: number) {
    this.recentWeights = [concurrency];
  }

  /** Messages running now. */
  get inFlight(): number {
    return this.running;
  }

  /** True while every slot is taken (by count or by the weight in hand): nothing more may be pulled. */
  get full(): boolean {
    return this.running >= this.concurrency || this.weightInHand >= this.concurrency;
  }

  /**
   * Messages to ask for: the free slots, fewer when a recent message carried several units of work, so that a pull
   * of messages as heavy as the heaviest recent one stays within the concurrency.
   */
  pullSize(): number {
    const free = this.concurrency - this.running;
    const heaviest = Math.max(1, ...this.recentWeights);
    return Math.max(1, Math.min(free, Math.floor((this.concurrency - this.weightInHand) / heaviest)));
  }

  /** Resolves once a slot is free, or when `stopped()` is true after a {@link wake}. */
  async waitForFree(stopped: () => boolean): Promise<void> {
    while (this.full && !stopped()) await new Promise<void>((resolve) => (this.waiter = resolve));
  }

  /** A message of `weight` starts running. */
  take(weight: number): void {
    this.recentWeights.push(weight);
    if (this.recentWeights.length > RECENT_MESSAGES) this.recentWeights.shift();
    this.running += 1;
    this.weightInHand += weight;
  }

  /** A pull brought no message: the consumer is idle, the next burst starts with small pulls again. */
  sawNoMessages(): void {
    this.recentWeights = [this.concurrency];
  }

  /** A message of `weight` is settled. */
  release(weight: number): void {
    this.running -= 1;
    this.weightInHand -= weight;
    this.wake();
    if (this.running === 0) this.idle.splice(0).forEach((resolve) => resolve());
  }

  /** Lets {@link waitForFree} check again (a slot was freed, or the runner stops). */
  wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  /** Resolves when no message runs, or after `graceMs`; true when none runs. */
  async drained(graceMs: number): Promise<boolean> {
    if (this.running === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.idle.push(resolve)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
    return this.running === 0;
  }
}
