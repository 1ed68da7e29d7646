import type { LeaseCollection, LeaseDocument } from './leases/lease-types';
import { BatchedInserter } from './store/batched-inserter';

/**
 * A collection of `upsertIfNewer`'s version leases, with what one process keeps for it: the group commit of its
 * first-generation inserts (one per write) and when it last pruned the kept leases. Create one per lease collection
 * and process (a service's collections object holds it) and hand the same one to every write.
 */
export class VersionLocks {
  /** Inserts made while one is in flight leave together in one `insertMany`. */
  readonly inserts: BatchedInserter<LeaseDocument>;
  /** When this process last pruned the kept leases, by the writers' clock; undefined until its first write. */
  lastPrunedAt: number | undefined;

  constructor(
    readonly collection: LeaseCollection,
    options: { inserts?: BatchedInserter<LeaseDocument> } = {},
  ) {
    this.inserts = options.inserts ?? new BatchedInserter(collection);
  }
}
