/**
 * What a service opened at start, closed in reverse order of opening (the NATS connection before the MongoDB client
 * it was opened after): one list the start-up path and the stop path share, so neither forgets a connection.
 */
export class OwnedResources {
  private readonly closers: Array<() => Promise<unknown>> = [];

  /** Registers `resource` with how to close it; returns it. */
  add<T>(resource: T, close: (resource: T) => Promise<unknown>): T {
    this.closers.push(() => close(resource));
    return resource;
  }

  /**
   * Closes everything registered, last first, each once, every one tried even when an earlier one fails. Rethrows
   * the first failure afterwards unless `quiet` (a failed start, whose own error is the one to report).
   */
  async closeAll(options: { quiet?: boolean } = {}): Promise<void> {
    let failure: { error: unknown } | undefined;
    for (let close = this.closers.pop(); close; close = this.closers.pop()) {
      try {
        await close();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure && !options.quiet) throw failure.error;
  }
}
