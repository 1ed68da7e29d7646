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
  /**
   * The lock generation the workspace's billing was last written under (`billing.lockGeneration`). From 2 on, the
   * lock is found by `_id` lookups walking forward from it; below, by a `{ key }` query, which FerretDB 1.24 answers
   * by scanning `workspaceLocks` (generation 1 is not trusted as a hint: once pruned, it would look never taken).
   */
  generationHint?: number;
}

const POLL_MS = 50;
/** Lock generations that ended this long ago are deleted when a new one is taken… */
const PRUNE_AFTER_MS = 10 * 60 * 1000;
/** …every this many generations: the prune is a `{ key }` query, a scan on FerretDB, so kept off most syncs. */
const PRUNE_EVERY_GENERATIONS = 100;

/**
 * Runs `sync` while holding the workspace's billing lock (`billing:<workspaceId>`), so two syncs of one workspace
 * run one after the other. The lock is a lease taken by inserting its next generation (atomic on MongoDB and on
 * FerretDB, whose conditional updates are not). When another sync holds it, waits up to `waitMs`, then throws
 * {@link RetryLaterError} for the rest of that lease. Released after `sync`, whether it succeeded or not. `sync`
 * is given the generation it holds, to keep as the next sync's {@link WorkspaceLockOptions.generationHint}.
 */
export async function withWorkspaceLock<T>(
  options: WorkspaceLockOptions,
  sync: (generation: number) => Promise<T>,
): Promise<T> {
  const key = `billing:${options.workspaceId}`;
  const deadline = Date.now() + options.waitMs;
  const generationHint =
    options.generationHint !== undefined && options.generationHint > 1 ? options.generationHint : undefined;
  for (;;) {
    const result = await acquireLease({
      leases: options.locks,
      key,
      owner: options.owner,
      leaseMs: options.leaseMs,
      clock: options.clock,
      generationHint,
    });
    if (result.acquired) {
      try {
        if (result.lease.generation % PRUNE_EVERY_GENERATIONS === 0)
          await pruneEndedGenerations(options, key, result.lease.generation);
        return await sync(result.lease.generation);
      } finally {
        await releaseLease({ leases: options.locks, lease: result.lease, clock: options.clock });
      }
    }
    if (Date.now() + POLL_MS > deadline) {
      throw new RetryLaterError(
        `Workspace ${options.workspaceId} billing is being synced by ${result.holder}`,
        Math.max(result.remainingMs, POLL_MS),
      );
    }
    await sleep(Math.min(POLL_MS, result.remainingMs + 1));
  }
}

/** Deletes the generations of the lock below `generation` that ended more than {@link PRUNE_AFTER_MS} ago. */
async function pruneEndedGenerations(options: WorkspaceLockOptions, key: string, generation: number): Promise<void> {
  const before = new Date(options.clock().getTime() - PRUNE_AFTER_MS);
  await options.locks.deleteMany({ key, generation: { $lt: generation }, until: { $lt: before } });
}
