import { systemClock } from '@berth/contract';
import { createRelayLease, type RelayLeaseOptions } from './relay-lease';
import { relayOutbox, type RelayOutboxOptions, type RelayOutboxResult } from './relay-outbox';

/** Options of {@link createOutboxRelay}. */
export interface OutboxRelayOptions extends RelayOutboxOptions {
  /** Pause between passes that found nothing more to do; 1000 ms by default. */
  pollIntervalMs?: number;
  /**
   * When set, only the replica holding this lease relays; the others poll for it and take over when it is
   * released or expires. Without it every replica relays, and they send many entries twice (deduplicated
   * downstream, but wasted work).
   */
  lease?: RelayLeaseOptions;
}

/** A relay polling its collections until stopped. */
export interface OutboxRelay {
  /** Starts polling; the first pass runs at once. Calling it while running does nothing. */
  start(): void;
  /** Runs a pass as soon as possible (e.g. right after a write), instead of at the next poll. */
  wake(): void;
  /** Stops polling and resolves once the pass in progress, if any, has finished. */
  stop(): Promise<void>;
  /** One pass now, outside the polling (tests, a CLI "flush"). */
  runOnce(): Promise<RelayOutboxResult>;
}

/**
 * The outbox relay as a long-running loop: a pass ({@link relayOutbox}) every `pollIntervalMs`, at once again while
 * passes return full batches, and at once after `wake()`. A pass that throws (the database unreachable) is logged
 * and retried at the next poll. Run it in every replica of the service that writes the documents, with a `lease` so
 * one relays at a time; if relays ever overlap, they at worst send an entry twice, under one idempotency key.
 */
export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const clock = options.clock ?? systemClock;
  const lease = options.lease ? createRelayLease(options.lease) : undefined;
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let wakeRequested = false;

  const schedule = (delayMs: number): void => {
    if (running) timer = setTimeout(tick, delayMs);
  };
  const tick = (): void => {
    timer = undefined;
    wakeRequested = false;
    inFlight = pass().then((more) => {
      inFlight = undefined;
      schedule(more || wakeRequested ? 0 : pollIntervalMs);
    });
  };
  const pass = async (): Promise<boolean> => {
    try {
      if (lease && !(await lease.hold(clock))) return false;
      return (await relayOutbox(options)).more;
    } catch (error) {
      options.logger.error({ err: error }, 'outbox relay pass failed; retrying at the next poll');
      return false;
    }
  };

  return {
    start() {
      if (running) return;
      running = true;
      schedule(0);
    },
    wake() {
      if (!running) return;
      if (inFlight) {
        wakeRequested = true;
      } else if (timer) {
        clearTimeout(timer);
        schedule(0);
      }
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await inFlight;
      await lease
        ?.release(clock)
        .catch((error: unknown) =>
          options.logger.warn({ err: error }, 'outbox relay lease not released; it expires on its own'),
        );
    },
    runOnce: () => relayOutbox(options),
  };
}
