/**
 * Counts the request bodies being read at once per key (the client IP), so one client cannot hold more than
 * `maxPerKey` unauthenticated bodies open at a time. An entry exists only while a body of its key is being read,
 * so memory is bounded by the requests in progress.
 */
export class BodySlots {
  private readonly held = new Map<string, number>();

  constructor(private readonly maxPerKey: number) {
    if (!Number.isInteger(maxPerKey) || maxPerKey < 1) throw new RangeError('maxPerKey must be a positive integer');
  }

  /** Takes a slot for `key`; false when it holds all of its slots already. Give it back with {@link release}. */
  tryAcquire(key: string): boolean {
    const count = this.held.get(key) ?? 0;
    if (count >= this.maxPerKey) return false;
    this.held.set(key, count + 1);
    return true;
  }

  release(key: string): void {
    const count = this.held.get(key) ?? 0;
    if (count <= 1) this.held.delete(key);
    else this.held.set(key, count - 1);
  }

  /** Keys holding a slot now. */
  get size(): number {
    return this.held.size;
  }
}
