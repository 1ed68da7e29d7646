import { setTimeout as sleep } from 'node:timers/promises';
import type { Collection } from 'mongodb';
import { acquireLease, releaseLease, type Clock, type LeaseDocument } from '@berth/inbox';
import { RetryLaterError } from '@berth/messaging';

/** Options for {@link withWorkspaceLock}. */
export interface WorkspaceLockOptions {
  locks: Collection<LeaseDocument>;
  workspaceId: string;
  /** This replica's id. */
  owner: string;
  /** How long the lock holds; longer than a sync's Stripe calls may take. */
  leaseMs: number;
  /** How long to wait for a lock another sync holds before giving the message back to JetStream. */
  waitMs: number;
  clock: Clock;
}

const POLL_MS = 50;
/** Lock generations that ended this long ago are deleted when a new one is taken. */
const PRUNE_AFTER_MS = 10 * 60 * 1000;

/**
 * Runs `sync` while holding the workspace's billing lock (`billing:<workspaceId>`), so two syncs of one workspace
 * run one after the other. The lock is a lease taken by inserting its next generation (atomic on MongoDB and on
 * FerretDB, whose conditional updates are not). When another sync holds it, waits up to `waitMs`, then throws
 * {@link RetryLaterError} for the rest of that lease. Released after `sync`, whether it succeeded or not.
 */
export async function withWorkspaceLock<T>(options: WorkspaceLockOptions, sync: () => Promise<T>): Promise<T> {
  const key = `billing:${options.workspaceId}`;
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    const result = await acquireLease({ leases: options.locks, key, owner: options.owner, leaseMs: options.leaseMs, clock: options.clock, pruneAfterMs: PRUNE_AFTER_MS });
    if (result.acquired) {
      try {
        return await sync();
      } finally {
        await releaseLease({ leases: options.locks, lease: result.lease, clock: options.clock });
      }
    }
    if (Date.now() + POLL_MS > deadline) {
      throw new RetryLaterError(`Workspace ${options.workspaceId} billing is being synced by ${result.holder}`, Math.max(result.remainingMs, POLL_MS));
    }
    await sleep(Math.min(POLL_MS, result.remainingMs + 1));
  }
}
