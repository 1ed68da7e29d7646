/** Runs tasks one after another per key, in the order they were submitted; different keys run side by side. */
export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every task submitted earlier under `key` has settled. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
