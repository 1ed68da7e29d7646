import { clockDelay, type Clock } from '@berth/contract';
import { RetryLaterError } from '@berth/messaging';
import { acquireLease, releaseLease, type LeaseCollection } from '@berth/store';

/** Options for {@link withWorkspaceLock}. */
export interface WorkspaceLockOptions {
  locks: LeaseCollection;
  workspaceId: string;
  /** This replica's id. */
  owner: string;
  /** How long the lock holds; longer than a sync's Stripe calls may take. */
  leaseMs: number;
  /** How long to wait for a lock another sync holds before giving the message back to JetStream. */
  waitMs: number;
  /** The leases' time, the wait's deadline (on its monotonic reading) and the polls' timer. */
  clock: Clock;
}

const POLL_MS = 50;

/**
 * Runs `sync` while holding the workspace's billing lock, so two syncs of one workspace run one after the other. The
 * lock is a lease of `@berth/store` on the key `billing:<workspaceId>` (one document, taken by one conditional
 * upsert, so of two replicas exactly one holds it). When another sync holds it, waits up to `waitMs`, then throws
 * {@link RetryLaterError} for the rest of that lease. Released after `sync`, whether it succeeded or not.
 */
export async function withWorkspaceLock<T>(options: WorkspaceLockOptions, sync: () => Promise<T>): Promise<T> {
  const key = `billing:${options.workspaceId}`;
  const deadline = options.clock.monotonic() + options.waitMs;
  for (;;) {
    const result = await acquireLease({
      leases: options.locks,
      key,
      owner: options.owner,
      leaseMs: options.leaseMs,
      clock: options.clock,
    });
    if (result.acquired) {
      try {
        return await sync();
      } finally {
        await releaseLease({ leases: options.locks, lease: result.lease, clock: options.clock });
      }
    }
    if (options.clock.monotonic() + POLL_MS > deadline) {
      throw new RetryLaterError(
        `Workspace ${options.workspaceId} billing is being synced by ${result.holder}`,
        Math.max(result.remainingMs, POLL_MS),
      );
    }
    await clockDelay(options.clock, Math.min(POLL_MS, result.remainingMs + 1));
  }
}
