import type { Clock } from '../types';
import { isDuplicateKeyError } from '../mongo-errors';
import {
  leaseDocumentId,
  leaseDocumentOf,
  type Lease,
  type LeaseCollection,
  type LeaseDocument,
  type RowLease,
} from './lease-types';

/** Options for {@link acquireLease}. */
export interface AcquireLeaseOptions {
  leases: LeaseCollection;
  key: string;
  /** This replica's id. */
  owner: string;
  /** How long the lease holds unless renewed or released. */
  leaseMs: number;
  clock: Clock;
  /**
   * When set, generations of this key whose lease ended more than this long ago are deleted after a successful
   * acquisition, so a frequently leased key keeps a handful of documents. Leave unset to keep the history (the inbox
   * keeps one document per attempt).
   */
  pruneAfterMs?: number;
  /**
   * A generation known to exist or to come next (the inbox keeps the last one on the event row). The latest
   * generation is then found by `_id` lookups walking forward from it, which stay cheap on FerretDB 1.24; without
   * it, a `{ key }` query sorted by generation is used, which FerretDB evaluates over the whole collection.
   */
  generationHint?: number;
  /**
   * The lease the key's row records, when it has one: it stands in for the document of its generation when that
   * document does not exist (see the inbox's `rowLeaseOf`). Its `generation` should be the hint.
   */
  rowLease?: RowLease;
}

/** What {@link acquireLease} found: the lease, or who holds it and for how much longer. */
export type AcquireLeaseResult =
  { acquired: true; lease: Lease } | { acquired: false; holder: string; remainingMs: number };

/**
 * Takes the lease on `key` if nobody holds it (never taken, released, or expired).
 *
 * Why an insert and not a conditional update: a conditional `updateOne`/`findOneAndUpdate` is an atomic
 * compare-and-set on MongoDB, but not on FerretDB 1.24, which reads the document, applies the update in memory and
 * writes the whole document back; ten concurrent "claim if free" updates there report several winners. The unique
 * `_id` of an insert is enforced by both, so the next generation `<key>#<n+1>` can be inserted by one replica only.
 */
export async function acquireLease(options: AcquireLeaseOptions): Promise<AcquireLeaseResult> {
  const { leases, key, owner, leaseMs, clock } = options;
  const now = clock();
  const latest = await findLatestGeneration(leases, key, options.generationHint, options.rowLease);
  if (latest && latest.releasedAt === null && latest.until.getTime() > now.getTime()) {
    return { acquired: false, holder: latest.owner, remainingMs: latest.until.getTime() - now.getTime() };
  }
  const generation = (latest?.generation ?? 0) + 1;
  const lease: Lease = { key, generation, owner, until: new Date(now.getTime() + leaseMs) };
  try {
    await leases.insertOne(leaseDocumentOf(lease, now));
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    const winner = await leases.findOne({ _id: leaseDocumentId(key, generation) });
    const remainingMs = winner ? Math.max(winner.until.getTime() - now.getTime(), 0) : leaseMs;
    return { acquired: false, holder: winner?.owner ?? 'unknown', remainingMs };
  }
  if (options.pruneAfterMs !== undefined) {
    await leases.deleteMany({
      key,
      generation: { $lt: generation },
      until: { $lt: new Date(now.getTime() - options.pruneAfterMs) },
    });
  }
  return { acquired: true, lease };
}

/** The newest lease of `key`, by `_id` lookups from the hint when there is one. */
async function findLatestGeneration(
  leases: LeaseCollection,
  key: string,
  hint: number | undefined,
  rowLease: RowLease | undefined,
): Promise<LeaseDocument | null> {
  if (hint === undefined || hint < 1) return leases.findOne({ key }, { sort: { generation: -1 } });
  const found: LeaseDocument | null = await leases.findOne({ _id: leaseDocumentId(key, hint) });
  const first = found ?? (rowLease?.generation === hint ? documentOfRowLease(key, rowLease) : null);
  if (!first) return hint === 1 ? null : leases.findOne({ key }, { sort: { generation: -1 } });
  let latest: LeaseDocument = first;
  for (;;) {
    const next: LeaseDocument | null = await leases.findOne({ _id: leaseDocumentId(key, latest.generation + 1) });
    if (!next) return latest;
    latest = next;
  }
}

/** A row's lease as the document it stands for: released when the row names no owner (its attempt ended). */
function documentOfRowLease(key: string, rowLease: RowLease): LeaseDocument {
  const ended = new Date(0);
  return {
    _id: leaseDocumentId(key, rowLease.generation),
    key,
    generation: rowLease.generation,
    owner: rowLease.owner ?? 'unknown',
    acquiredAt: ended,
    until: rowLease.until ?? ended,
    releasedAt: rowLease.owner === null || rowLease.until === null ? ended : null,
  };
}
