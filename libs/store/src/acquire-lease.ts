import type { Clock } from '@berth/contract';
import { isDuplicateKeyError } from './duplicate-key';
import type { Lease, LeaseCollection, LeaseDocument } from './lease';

/** Options for {@link acquireLease}. */
export interface AcquireLeaseOptions {
  leases: LeaseCollection;
  key: string;
  /** This replica's id. */
  owner: string;
  /** How long the lease holds unless renewed or released. */
  leaseMs: number;
  clock: Clock;
}

/** What {@link acquireLease} found: the lease, or who holds it and for how much longer. */
export type AcquireLeaseResult =
  { acquired: true; lease: Lease } | { acquired: false; holder: string; remainingMs: number };

/**
 * Takes the lease on `key` if nobody holds it (never taken, released, or expired), by one conditional upsert:
 * `{ _id: key, until <= now }`. A free document matches and is taken; no document is inserted; a live one does not
 * match, so the upsert's insert collides with its `_id` (E11000) and the caller is told who holds it. The store
 * evaluates the condition and the write as one, so of any number of replicas racing for a key exactly one wins.
 * An owner that holds the lease and takes it again is busy as anyone else: it renews instead ({@link renewLease}).
 */
export async function acquireLease(options: AcquireLeaseOptions): Promise<AcquireLeaseResult> {
  const first = await tryAcquire(options);
  // Busy but found free: the holder let go between the upsert and the read. One more try, then report that one.
  return first === 'free' ? busyIfFree(await tryAcquire(options)) : first;
}

/** One conditional upsert; `free` when it collided with a lease that had ended by the time it was read. */
async function tryAcquire(options: AcquireLeaseOptions): Promise<AcquireLeaseResult | 'free'> {
  const { leases, key, owner, leaseMs, clock } = options;
  const now = clock.now();
  const lease: Lease = { key, owner, until: new Date(now.getTime() + leaseMs) };
  try {
    await leases.updateOne(
      { _id: key, until: { $lte: now } },
      { $set: { owner, until: lease.until, takenAt: now, releasedAt: null } },
      { upsert: true },
    );
    return { acquired: true, lease };
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
  const holder: LeaseDocument | null = await leases.findOne({ _id: key });
  if (!holder || holder.until.getTime() <= now.getTime()) return 'free';
  return { acquired: false, holder: holder.owner, remainingMs: holder.until.getTime() - now.getTime() };
}

/** A second collision whose holder let go again at once: busy for now, the caller polls. */
function busyIfFree(result: AcquireLeaseResult | 'free'): AcquireLeaseResult {
  return result === 'free' ? { acquired: false, holder: 'unknown', remainingMs: 0 } : result;
}
