import { systemClock, type Clock } from '@berth/contract';

/** How a {@link GroupCommitQueue} groups items into messages. */
export interface GroupCommitOptions {
  /** Most items one message carries (default 100). `1` gives every item its own message. */
  maxItemsPerMessage?: number;
  /** Most body bytes one message carries (default 256 KiB); a bigger item still goes, alone. */
  maxBytesPerMessage?: number;
  /** Messages of one key awaiting their PubAck at once (default 2); later items gather meanwhile. */
  maxInFlightPerKey?: number;
  /**
   * Longest time an item may take from `enqueue` to stored, in ms (default: no limit). An item still waiting for a
   * message then is rejected with {@link GroupCommitTimeoutError}; a message is committed with the deadline of its
   * oldest item, so the store can give up on it in time too.
   */
  maxWaitMs?: number;
  /** Most items waiting for a message per key (default: no limit); past it `enqueue` rejects at once with {@link GroupCommitFullError}. */
  maxPendingItemsPerKey?: number;
  /** Most bytes of items waiting for a message per key (default: no limit); past it `enqueue` rejects at once. */
  maxPendingBytesPerKey?: number;
  /** Times the waits (its monotonic reading) and the sweep of overdue items; {@link systemClock} by default. */
  clock?: Clock;
}

/**
 * Stores one message made of `items` (all of one key) and resolves once it is durably stored. `deadline` (on the
 * monotonic reading of the queue's clock, `Infinity` without `maxWaitMs`) is when its oldest item's wait runs out.
 */
export type CommitItems<Item, Result> = (key: string, items: Item[], deadline: number) => Promise<Result>;

/** An item waited longer than `maxWaitMs` for a message. */
export class GroupCommitTimeoutError extends Error {
  constructor(readonly waitedMs: number) {
    super(`not committed within ${waitedMs} ms: earlier messages of its key are still being stored`);
    this.name = 'GroupCommitTimeoutError';
  }
}

/** The key already has as many items or bytes waiting as it may hold. */
export class GroupCommitFullError extends Error {
  constructor(key: string) {
    super(`too many items waiting for key ${key}`);
    this.name = 'GroupCommitFullError';
  }
}

interface PendingItem<Item, Result> {
  readonly item: Item;
  readonly size: number;
  readonly deadline: number;
  readonly resolve: (result: Result) => void;
  readonly reject: (error: unknown) => void;
}

interface KeyState<Item, Result> {
  inFlight: number;
  pending: PendingItem<Item, Result>[];
  pendingBytes: number;
  /** A flush is set for the end of this event-loop turn. */
  flushScheduled: boolean;
}

/**
 * Group commit for JetStream publishes. With `sync_interval: always` every stored message costs one fsync, and the
 * server stores the messages of a stream one at a time, so one message per item caps a stream at a few thousand
 * items a second whatever the client does. Here, while the messages of a key (a subject) await their PubAck, items
 * for that key gather and leave together in the next message.
 *
 * A message leaves at the end of the event-loop turn (`setImmediate`) in which its first item was queued or a
 * slot came free, so every item the turn's I/O produced goes with it: sending at once would put the first request
 * of a burst alone in a message and make the rest of the burst wait a whole PubAck round trip (the README's design
 * notes give the measurement). An idle system adds only the rest of the current turn.
 *
 * Nothing is traded for it: every `enqueue` resolves only once the message carrying its item is stored (fsynced),
 * and rejects when that message is refused.
 *
 * Bounded: an item waits at most `maxWaitMs` (swept every {@link EXPIRY_SWEEP_MS} ms while items wait), and a key
 * holds at most `maxPendingItemsPerKey` items and `maxPendingBytesPerKey` bytes waiting, so a slow store costs
 * bounded memory and every caller hears back in time.
 */
export class GroupCommitQueue<Item, Result> {
  private readonly keys = new Map<string, KeyState<Item, Result>>();
  private readonly maxItems: number;
  private readonly maxBytes: number;
  private readonly maxInFlight: number;
  private readonly maxWaitMs: number;
  private readonly maxPendingItems: number;
  private readonly maxPendingBytes: number;
  private readonly clock: Clock;
  private cancelSweep?: () => void;

  constructor(
    private readonly commit: CommitItems<Item, Result>,
    options: GroupCommitOptions = {},
  ) {
    this.maxItems = Math.max(1, options.maxItemsPerMessage ?? 100);
    this.maxBytes = Math.max(1024, options.maxBytesPerMessage ?? 256 * 1024);
    this.maxInFlight = Math.max(1, options.maxInFlightPerKey ?? 2);
    this.maxWaitMs = options.maxWaitMs ?? Number.POSITIVE_INFINITY;
    this.maxPendingItems = options.maxPendingItemsPerKey ?? Number.POSITIVE_INFINITY;
    this.maxPendingBytes = options.maxPendingBytesPerKey ?? Number.POSITIVE_INFINITY;
    this.clock = options.clock ?? systemClock;
  }

  /**
   * Queues `item` (of `size` bytes) under `key`; resolves with the result of the message that carried it.
   * @throws GroupCommitFullError (as a rejection) when the key holds its most items or bytes already;
   * GroupCommitTimeoutError when the item waited `maxWaitMs` without leaving in a message.
   */
  enqueue(key: string, item: Item, size: number): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      let state = this.keys.get(key);
      if (state === undefined) {
        state = { inFlight: 0, pending: [], pendingBytes: 0, flushScheduled: false };
        this.keys.set(key, state);
      }
      if (
        state.pending.length >= this.maxPendingItems ||
        (state.pending.length > 0 && state.pendingBytes + size > this.maxPendingBytes)
      ) {
        if (state.inFlight === 0 && state.pending.length === 0) this.keys.delete(key);
        reject(new GroupCommitFullError(key));
        return;
      }
      state.pending.push({ item, size, deadline: this.clock.monotonic() + this.maxWaitMs, resolve, reject });
      state.pendingBytes += size;
      this.scheduleFlush(key, state);
      if (this.cancelSweep === undefined && this.maxWaitMs !== Number.POSITIVE_INFINITY) this.startSweep();
    });
  }

  /** Items waiting for a message, over every key. */
  get waiting(): number {
    let count = 0;
    for (const state of this.keys.values()) count += state.pending.length;
    return count;
  }

  private scheduleFlush(key: string, state: KeyState<Item, Result>): void {
    if (state.flushScheduled) return;
    state.flushScheduled = true;
    setImmediate(() => {
      state.flushScheduled = false;
      this.flush(key, state);
    });
  }

  private flush(key: string, state: KeyState<Item, Result>): void {
    while (state.inFlight < this.maxInFlight && state.pending.length > 0) {
      const batch = this.takeBatch(state);
      state.inFlight += 1;
      let committed: Promise<Result>;
      try {
        committed = this.commit(
          key,
          batch.map((pending) => pending.item),
          batch[0].deadline,
        );
      } catch (error) {
        committed = Promise.reject(error);
      }
      committed
        .then(
          (result) => batch.forEach((pending) => pending.resolve(result)),
          (error: unknown) => batch.forEach((pending) => pending.reject(error)),
        )
        .finally(() => {
          state.inFlight -= 1;
          if (state.inFlight === 0 && state.pending.length === 0) this.keys.delete(key);
          else this.scheduleFlush(key, state);
        });
    }
  }

  private takeBatch(state: KeyState<Item, Result>): PendingItem<Item, Result>[] {
    let bytes = 0;
    let count = 0;
    while (count < state.pending.length && count < this.maxItems) {
      const size = state.pending[count].size + 1;
      if (count > 0 && bytes + size > this.maxBytes) break;
      bytes += size;
      count += 1;
    }
    const taken = state.pending.splice(0, count);
    for (const pending of taken) state.pendingBytes -= pending.size;
    return taken;
  }

  private startSweep(): void {
    this.cancelSweep = this.clock.setTimer(Math.min(EXPIRY_SWEEP_MS, this.maxWaitMs), () => {
      this.cancelSweep = undefined;
      if (this.expireOverdue() > 0) this.startSweep();
    });
  }

  /**
   * Rejects the items whose wait ran out (a key's items share one wait and are in order, so each key stops early);
   * returns how many still wait, so the sweep goes on only while some do.
   */
  private expireOverdue(): number {
    const now = this.clock.monotonic();
    let waiting = 0;
    for (const [key, state] of this.keys) {
      while (state.pending.length > 0 && state.pending[0].deadline <= now) {
        const expired = state.pending.shift()!;
        state.pendingBytes -= expired.size;
        expired.reject(new GroupCommitTimeoutError(this.maxWaitMs));
      }
      if (state.inFlight === 0 && state.pending.length === 0) this.keys.delete(key);
      waiting += state.pending.length;
    }
    return waiting;
  }
}

/** How often waiting items are checked against their deadline; `maxWaitMs` is honoured to within this. */
const EXPIRY_SWEEP_MS = 50;
