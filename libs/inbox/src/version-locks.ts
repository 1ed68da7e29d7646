import type { LeaseCollection, LeaseDocument } from './leases/lease-types';
import { BatchedInserter } from './store/batched-inserter';
import { WrittenVersions } from './written-versions';

/**
 * A collection of `upsertIfNewer`'s version leases, with what one process keeps for it: the group commit of its
 * first-generation inserts (one per write), the versions it last wrote (which spare a write of the same document its
 * read) and when it last pruned the kept leases. Create one per lease collection
 * and process (a service's collections object holds it) and hand the same one to every write.
 */
export class VersionLocks {
  /** Inserts made while one is in flight leave together in one `insertMany`. */
  readonly inserts: BatchedInserter<LeaseDocument>;
  /** What this process last wrote to each of its recently written documents (`new WrittenVersions(0)`: nothing). */
  readonly written: WrittenVersions;
  /** When this process last pruned the kept leases, by the writers' clock; undefined until its first write. */
  lastPrunedAt: number | undefined;

  constructor(
    readonly collection: LeaseCollection,
    options: { inserts?: BatchedInserter<LeaseDocument>; written?: WrittenVersions } = {},
  ) {
    this.inserts = options.inserts ?? new BatchedInserter(collection);
    this.written = options.written ?? new WrittenVersions();
  }
}
