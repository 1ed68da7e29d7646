/** A monotonic clock in milliseconds (default `performance.now`); tests pass their own. */
export type MonotonicClock = () => number;

/** How long one observation of the server's time is trusted before it ages out (bounds the drift it can carry). */
const OBSERVATION_WINDOW_MS = 60000;

/**
 * The server's clock as JetStream stamps stored messages (epoch ms), seen from this process: every timestamp of a
 * message read back (a KV entry's `created`) is a time the server had already reached, so the server's time now is
 * at least that timestamp plus the monotonic time elapsed since it was read. `now()` is the largest such lower bound
 * over the last minute of observations. Leases and rate windows judged with it depend on the server's one clock,
 * never on a worker's wall clock: two workers on machines whose clocks disagree still judge a lease alike, and a
 * lease is never judged expired before the server's clock passed its end (a lower bound can only judge late, by
 * about one round trip).
 */
export class ServerClock {
  private current = { offset: Number.NEGATIVE_INFINITY, since: 0 };
  private previous = Number.NEGATIVE_INFINITY;

  constructor(private readonly monotonic: MonotonicClock = () => performance.now()) {}

  /** A server timestamp (epoch ms) of a message just read: the server's time is at least this now. */
  observe(serverMs: number): void {
    const at = this.monotonic();
    if (at - this.current.since >= OBSERVATION_WINDOW_MS) {
      this.previous = this.current.offset;
      this.current = { offset: Number.NEGATIVE_INFINITY, since: at };
    }
    this.current.offset = Math.max(this.current.offset, serverMs - at);
  }

  /** True once a timestamp of the server has been observed. */
  get calibrated(): boolean {
    return Number.isFinite(Math.max(this.current.offset, this.previous));
  }

  /**
   * Observes the server's time through a stream info, which the server stamps with its time (`ts`, nats-server
   * 2.10+; nats.js does not type it). Returns false when the reply carries no time.
   */
  observeStreamInfo(info: object): boolean {
    const serverTime = Date.parse((info as { ts?: string }).ts ?? '');
    if (!Number.isFinite(serverTime)) return false;
    this.observe(serverTime);
    return true;
  }

  /** A lower bound of the server's time now (epoch ms), or `floor` when nothing was observed (or it is later). */
  now(floor = Number.NEGATIVE_INFINITY): number {
    const offset = Math.max(this.current.offset, this.previous);
    return Math.max(floor, this.monotonic() + offset);
  }
}
