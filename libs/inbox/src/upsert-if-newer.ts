import { setTimeout as sleep } from 'node:timers/promises';
import type { Collection, Document, Filter, OptionalUnlessRequiredId, UpdateFilter } from 'mongodb';
import type { Clock } from './types';
import { acquireLease } from './leases/acquire-lease';
import { releaseLease } from './leases/release-lease';
import { leaseDocumentId, leaseDocumentOf, type Lease } from './leases/lease-types';
import { isDuplicateKeyError } from './mongo-errors';
import type { VersionLocks } from './version-locks';
import type { WrittenVersion } from './written-versions';

/** Options for {@link upsertIfNewer}. */
export interface UpsertIfNewerOptions<T extends Document> {
  collection: Collection<T>;
  /**
   * Where the per-version write leases live (a lease collection of its own, indexed with `ensureLeaseIndexes`), with
   * this process's group commit of their inserts and prune schedule: the same object for every write. The lease of a
   * write is kept for `leaseRetentionMs`, then pruned, so the collection holds the writes of that window.
   */
  locks: VersionLocks;
  /** This replica's id, the lease owner. */
  owner: string;
  clock: Clock;
  /** How long a write lease holds if its writer dies: 30 000 ms by default. */
  leaseMs?: number;
  /**
   * How long the lease of a landed write is kept (15 minutes by default): a writer skips its second read only when
   * its lease insert lands within a fifteenth of it after its first read. Tests shorten it to see the prune.
   */
  leaseRetentionMs?: number;
  /** How long to wait for another writer of the same document before throwing (the caller retries): 10 000 ms. */
  waitMs?: number;
  /** The document's `_id`. */
  id: string;
  /** The field holding the version of what is stored (`clerkUpdatedAt`, `stripeFetchedAt`). */
  versionField: string;
  /** The incoming version; written only if greater than the stored one (or none is stored). */
  version: Date | number;
  /**
   * Write whatever version is stored, still under its lease and still subject to the guard: for a change that wins
   * over any version, such as a deletion that is final (identity-sync's `softDelete`).
   */
  anyStoredVersion?: boolean;
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

/** How long the lease of a write is kept after it (see {@link upsertIfNewer}): 15 minutes by default. */
const DEFAULT_LEASE_RETENTION_MS = 15 * 60 * 1000;

/**
 * Writes `set` to document `id` only if `version` is newer than the stored version (and the guard holds), with every
 * query exactly `{ _id }`: the only filter FerretDB 1.24 answers through an index (a version condition beside `_id`
 * makes it scan the collection).
 *
 * The compare and the write are made atomic by a lease on the stored version, `<collection>:<id>@<stored version>`,
 * taken by inserting a lease document (unique `_id`, enforced by MongoDB and FerretDB alike, whose conditional updates
 * are not atomic). Every transition away from a stored version thus has one writer at a time, so an older change
 * never overwrites a newer one, on MongoDB and on FerretDB, while writers of one document race.
 *
 * The lease of a write is kept (for `leaseRetentionMs`, then pruned), not deleted: its `<key>#1` then says for good
 * that the version it names was left. So a writer whose insert of `<key>#1` succeeds knows that nobody moved the
 * document on since its read, and writes without reading it again: three operations (read, insert the lease, write)
 * instead of six (read, look the lease up, insert it, read again, write, delete the lease). The one condition is
 * that the insert lands within `leaseRetentionMs / 15` of the read (a minute by default), far inside the retention;
 * a slower writer reads the document again under its lease, as does one that took a later generation (`<key>#1`
 * held by a writer in progress or one that died). A lease under which nothing was written is deleted; one whose
 * write failed is released, so the next writer takes `<key>#2` and reads again. A stale change is answered from one
 * read, without a lease. The guarantee holds as long as a writer finishes within its lease (`leaseMs`, 30 s by
 * default, against writes of milliseconds). One more window comes with the prune: a writer that died holding
 * `<key>#1` leaves it until the prune; one writer taking `<key>#2` just before the prune deletes `#1`, and another
 * inserting `#1` just after, would both hold the version. That takes a crash mid-write, the document untouched for
 * the whole retention, and both writers within milliseconds of a prune.
 *
 * A process also remembers its own last write of each document it wrote recently (`locks.written`), and its next
 * write of the same document, within that same fifteenth of the retention, takes the remembered state for its read:
 * two operations (insert the lease, write). It is the same argument: the document was in the remembered state when
 * the write landed, and whoever moved it on since took `<key>#1` of that state first, so the insert fails, and the
 * writer forgets what it remembered and reads. This needs every write of the version and guard fields to go through
 * `upsertIfNewer`, as the services' do; a document edited by hand is read again only after that minute. A change the
 * remembered state calls stale is still checked against a read.
 *
 * Leases older than the retention are deleted by one `deleteMany` on `until` every third of the retention (per
 * process and collection, in the background of a write): a scan of the lease collection on FerretDB, which holds
 * about rate x retention documents, against the two operations per write it saves.
 */
export async function upsertIfNewer<T extends Document>(
  options: UpsertIfNewerOptions<T>,
): Promise<UpsertIfNewerResult> {
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  const retentionMs = options.leaseRetentionMs ?? DEFAULT_LEASE_RETENTION_MS;
  const leaseMs = options.leaseMs ?? 30_000;
  // A read, or a remembered write, this recent is trusted once the first lease of what it found is won.
  const trustedForMs = retentionMs / 15;
  pruneKeptLeases(options.locks, options.clock, retentionMs);
  const memoryKey = writtenKey(options);
  let mayRecall = true;
  for (;;) {
    const remembered = mayRecall ? recallNewerWrite(options, memoryKey, trustedForMs) : undefined;
    mayRecall = false;
    const readStarted = remembered?.sentAt ?? performance.now();
    const stored = remembered?.document ?? (await options.collection.findOne({ _id: options.id } as Filter<T>));
    if (stored && !isOlderThanIncoming(stored, options)) return 'stale';
    const key = `${options.collection.collectionName}:${options.id}@${versionKey(stored?.[options.versionField])}`;
    const first = await insertFirstLease(options, key, leaseMs);
    if (first) {
      const readAgain = performance.now() - readStarted >= trustedForMs;
      const outcome = await writeUnderLease(options, stored, first, { readAgain, memoryKey });
      if (outcome !== 'moved') return outcome;
      continue;
    }
    if (remembered) {
      // Somebody moved the document on since this process wrote it: read what is stored now.
      options.locks.written.forget(memoryKey);
      continue;
    }
    // `<key>#1` is taken: by a writer that has written (its lease is kept), one still writing, or one that died.
    const now = await options.collection.findOne({ _id: options.id } as Filter<T>);
    if (!sameVersion(now, stored, options.versionField)) continue;
    const acquired = await acquireLease({
      leases: options.locks.collection,
      key,
      owner: options.owner,
      leaseMs,
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
    const outcome = await writeUnderLease(options, stored, acquired.lease, { readAgain: true, memoryKey });
    if (outcome !== 'moved') return outcome;
  }
}

/**
 * Inserts `<key>#1`; the lease, or undefined when that generation exists. An insert that landed after its lease ran
 * out (a stalled store) is released and reported as taken: another writer may already hold `<key>#2`, and this one
 * reads again and takes the next generation, as any writer that finds `<key>#1` does.
 */
async function insertFirstLease(
  options: Pick<UpsertIfNewerOptions<Document>, 'locks' | 'owner' | 'clock'>,
  key: string,
  leaseMs: number,
): Promise<Lease | undefined> {
  const now = options.clock();
  const taken: Lease = { key, generation: 1, owner: options.owner, until: new Date(now.getTime() + leaseMs) };
  if ((await options.locks.inserts.insert(leaseDocumentOf(taken, now))) === 'duplicate') return undefined;
  if (options.clock().getTime() >= taken.until.getTime()) {
    // Kept, not deleted: `<key>#1` existing is what tells a writer that read the same version to read again.
    await releaseLease({ leases: options.locks.collection, lease: taken, clock: options.clock });
    return undefined;
  }
  return taken;
}

/**
 * Writes under `lease` if the document is still as first read (`moved` when it is not), reading it again first
 * unless `readAgain` is false (a fresh first generation: see {@link upsertIfNewer}). Keeps the lease of a write,
 * deletes one under which nothing was written, releases one whose write failed. A write that landed is remembered
 * under `memoryKey` (`locks.written`).
 */
async function writeUnderLease<T extends Document>(
  options: UpsertIfNewerOptions<T>,
  stored: Document | null,
  lease: Lease,
  { readAgain, memoryKey }: { readAgain: boolean; memoryKey: string },
): Promise<UpsertIfNewerResult | 'moved'> {
  const leaseId = leaseDocumentId(lease.key, lease.generation);
  let outcome: UpsertIfNewerResult | 'moved';
  try {
    outcome = await writeIfUnmoved(options, stored, readAgain, memoryKey);
  } catch (error) {
    await releaseLease({ leases: options.locks.collection, lease, clock: options.clock }).catch(() => undefined);
    throw error;
  }
  if (outcome === 'moved' || outcome === 'stale') await options.locks.collection.deleteOne({ _id: leaseId });
  return outcome;
}

async function writeIfUnmoved<T extends Document>(
  options: UpsertIfNewerOptions<T>,
  stored: Document | null,
  readAgain: boolean,
  memoryKey: string,
): Promise<UpsertIfNewerResult | 'moved'> {
  const current = readAgain ? await options.collection.findOne({ _id: options.id } as Filter<T>) : stored;
  if (!sameVersion(current, stored, options.versionField)) return 'moved';
  if (current && !isOlderThanIncoming(current, options)) return 'stale';
  const fields = { ...options.set, [options.versionField]: options.version };
  const sentAt = performance.now();
  if (!current) {
    const created = { _id: options.id, ...(options.guard ?? {}), ...(options.setOnInsert ?? {}), ...fields };
    try {
      await options.collection.insertOne(created as unknown as OptionalUnlessRequiredId<T>);
    } catch (error) {
      if (isDuplicateKeyError(error)) return 'moved';
      throw error;
    }
    rememberWrite(options, memoryKey, created, sentAt);
    return 'inserted';
  }
  const written = await options.collection.updateOne(
    { _id: options.id } as Filter<T>,
    { $set: fields } as unknown as UpdateFilter<T>,
  );
  if (written.matchedCount === 1) rememberWrite(options, memoryKey, { ...current, ...fields }, sentAt);
  return 'updated';
}

/**
 * Where this process remembers its writes of the document: one entry per collection, `_id`, version field and guard
 * fields, so a write compares only what the remembered one compared.
 */
function writtenKey<T extends Document>(options: UpsertIfNewerOptions<T>): string {
  const guardFields = Object.keys(options.guard ?? {}).sort();
  return JSON.stringify([options.collection.collectionName, options.id, options.versionField, guardFields]);
}

/**
 * This process's last write of the document, if it was sent within `maxAgeMs` and the incoming version is newer
 * than it: the write then needs no read (see {@link upsertIfNewer}). A change it would call stale is checked against
 * the stored document instead.
 */
function recallNewerWrite<T extends Document>(
  options: UpsertIfNewerOptions<T>,
  memoryKey: string,
  maxAgeMs: number,
): WrittenVersion | undefined {
  const remembered = options.locks.written.recall(memoryKey, maxAgeMs);
  return remembered && isOlderThanIncoming(remembered.document, options) ? remembered : undefined;
}

function rememberWrite<T extends Document>(
  options: UpsertIfNewerOptions<T>,
  memoryKey: string,
  document: Document,
  sentAt: number,
): void {
  const compared: Document = { _id: options.id, [options.versionField]: document[options.versionField] };
  for (const field of Object.keys(options.guard ?? {})) compared[field] = document[field] ?? null;
  options.locks.written.remember(memoryKey, { document: compared, sentAt });
}

/** True when both reads found the same stored version (or both found no document). */
function sameVersion(current: Document | null, stored: Document | null, versionField: string): boolean {
  return (
    versionKey(current?.[versionField]) === versionKey(stored?.[versionField]) &&
    (current === null) === (stored === null)
  );
}

/**
 * Deletes, in the background, the leases of `locks` that ended more than `retentionMs` ago, at most every third of
 * it per process (the first time a third of it after this process first wrote there). Best effort: a failed prune
 * is tried again at the next interval.
 */
function pruneKeptLeases(locks: VersionLocks, clock: Clock, retentionMs: number): void {
  const now = clock().getTime();
  const last = locks.lastPrunedAt;
  if (last === undefined) {
    locks.lastPrunedAt = now;
    if (retentionMs > 0) return;
  } else if (now - last < retentionMs / 3) return;
  locks.lastPrunedAt = now;
  const before = new Date(now - retentionMs);
  void locks.collection.deleteMany({ until: { $lt: before } }).catch(() => undefined);
}

/**
 * True when the stored document passes the guard and its version is older than the incoming one (or absent, or
 * `anyStoredVersion`).
 */
function isOlderThanIncoming(
  stored: Document,
  options: Pick<UpsertIfNewerOptions<Document>, 'guard' | 'versionField' | 'version' | 'anyStoredVersion'>,
): boolean {
  for (const [field, expected] of Object.entries(options.guard ?? {})) {
    if (versionKey(stored[field]) !== versionKey(expected)) return false;
  }
  if (options.anyStoredVersion) return true;
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
