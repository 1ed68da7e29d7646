import { setTimeout as sleep } from 'node:timers/promises';
import type { Collection, Document, Filter, OptionalUnlessRequiredId, UpdateFilter } from 'mongodb';
import type { Clock } from './types';
import { isDuplicateKeyError } from './mongo-errors';
import { acquireLease } from './leases/acquire-lease';
import { leaseDocumentId, type Lease, type LeaseCollection } from './leases/lease-types';

/** Options for {@link upsertIfNewer}. */
export interface UpsertIfNewerOptions<T extends Document> {
  collection: Collection<T>;
  /**
   * Where the per-version write leases live (a lease collection of its own, indexed with `ensureLeaseIndexes`). Each
   * lease document is deleted once its write has landed, so the collection holds only writes in flight.
   */
  locks: LeaseCollection;
  /** This replica's id, the lease owner. */
  owner: string;
  clock: Clock;
  /** How long a write lease holds if its writer dies: 30 000 ms by default. */
  leaseMs?: number;
  /** How long to wait for another writer of the same document before throwing (the caller retries): 10 000 ms. */
  waitMs?: number;
  /** The document's `_id`. */
  id: string;
  /** The field holding the version of what is stored (`clerkUpdatedAt`, `stripeFetchedAt`). */
  versionField: string;
  /** The incoming version; written only if greater than the stored one (or none is stored). */
  version: Date | number;
  /** Fields to write (the version field is added). */
  set: Record<string, unknown>;
  /** Fields written only when the document is created. */
  setOnInsert?: Record<string, unknown>;
  /**
   * Extra equality conditions (e.g. `{ deletedAt: null }`, where null also matches a missing field): a document that
   * fails them is left alone, like a newer one. They are copied into a created document.
   */
  guard?: Record<string, unknown>;
}

/** What {@link upsertIfNewer} did. */
export type UpsertIfNewerResult = 'inserted' | 'updated' | 'stale';

const POLL_MS = 20;

/**
 * Writes `set` to document `id` only if `version` is newer than the stored version (and the guard holds), with every
 * query exactly `{ _id }`: the only filter FerretDB 1.24 answers through an index (a version condition beside `_id`
 * makes it scan the collection).
 *
 * The compare and the write are made atomic by a lease on the stored version, `<collection>:<id>@<stored version>`,
 * taken by inserting a lease document (unique `_id`, enforced by MongoDB and FerretDB alike, whose conditional updates
 * are not atomic). Under it the document is read again: still at that version, the write goes through by `_id`;
 * moved on, the lease is dropped and the comparison starts over. Every transition away from a stored version thus
 * has one writer at a time, so an older change never overwrites a newer one, on MongoDB and on FerretDB, while
 * writers of one document race. A stale change is answered from one read, without a lease. The guarantee holds as
 * long as a writer finishes within its lease (`leaseMs`, 30 s by default, against writes of milliseconds).
 */
export async function upsertIfNewer<T extends Document>(
  options: UpsertIfNewerOptions<T>,
): Promise<UpsertIfNewerResult> {
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  for (;;) {
    const stored = await options.collection.findOne({ _id: options.id } as Filter<T>);
    if (stored && !isOlderThanIncoming(stored, options)) return 'stale';
    const key = `${options.collection.collectionName}:${options.id}@${versionKey(stored?.[options.versionField])}`;
    const acquired = await acquireLease({
      leases: options.locks,
      key,
      owner: options.owner,
      leaseMs: options.leaseMs ?? 30_000,
      clock: options.clock,
      generationHint: 1,
    });
    if (!acquired.acquired) {
      if (Date.now() > deadline)
        throw new Error(
          `Document ${options.id} of ${options.collection.collectionName} is being written by ${acquired.holder}`,
        );
      await sleep(Math.min(POLL_MS, acquired.remainingMs + 1));
      continue;
    }
    const outcome = await writeUnderLease(options, stored, acquired.lease);
    if (outcome !== 'moved') return outcome;
  }
}

/** Re-reads under the lease and writes if the document is still as first read; `moved` when it is not. */
async function writeUnderLease<T extends Document>(
  options: UpsertIfNewerOptions<T>,
  stored: Document | null,
  lease: Lease,
): Promise<UpsertIfNewerResult | 'moved'> {
  const leaseId = leaseDocumentId(lease.key, lease.generation);
  try {
    const current = await options.collection.findOne({ _id: options.id } as Filter<T>);
    if (
      versionKey(current?.[options.versionField]) !== versionKey(stored?.[options.versionField]) ||
      (current === null) !== (stored === null)
    )
      return 'moved';
    if (current && !isOlderThanIncoming(current, options)) return 'stale';
    const fields = { ...options.set, [options.versionField]: options.version };
    if (!current) {
      try {
        await options.collection.insertOne({
          _id: options.id,
          ...(options.guard ?? {}),
          ...(options.setOnInsert ?? {}),
          ...fields,
        } as unknown as OptionalUnlessRequiredId<T>);
        return 'inserted';
      } catch (error) {
        if (isDuplicateKeyError(error)) return 'moved';
        throw error;
      }
    }
    await options.collection.updateOne(
      { _id: options.id } as Filter<T>,
      { $set: fields } as unknown as UpdateFilter<T>,
    );
    return 'updated';
  } finally {
    await options.locks.deleteOne({ _id: leaseId });
  }
}

/** True when the stored document passes the guard and its version is older than the incoming one (or absent). */
function isOlderThanIncoming(
  stored: Document,
  options: Pick<UpsertIfNewerOptions<Document>, 'guard' | 'versionField' | 'version'>,
): boolean {
  for (const [field, expected] of Object.entries(options.guard ?? {})) {
    if (versionKey(stored[field]) !== versionKey(expected)) return false;
  }
  const storedVersion = stored[options.versionField] as Date | number | null | undefined;
  if (storedVersion === null || storedVersion === undefined) return true;
  return Number(storedVersion) < Number(options.version);
}

/** A stored value as a lease-key part and for equality: dates by their time, null and missing alike. */
function versionKey(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (value instanceof Date) return String(value.getTime());
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
