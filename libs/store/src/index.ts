/**
 * `@berth/store`: generic MongoDB helpers, each a single conditional write the store evaluates atomically (leases,
 * version-guarded upserts), plus duplicate-key detection, index creation and group-committed inserts and updates.
 */
export { acquireLease } from './acquire-lease';
export type { AcquireLeaseOptions, AcquireLeaseResult } from './acquire-lease';
export { renewLease } from './renew-lease';
export type { RenewLeaseOptions } from './renew-lease';
export { releaseLease } from './release-lease';
export type { ReleaseLeaseOptions } from './release-lease';
export type { Lease, LeaseCollection, LeaseDocument } from './lease';
export { upsertIfNewer } from './upsert-if-newer';
export type { UpsertIfNewerOptions, UpsertIfNewerResult } from './upsert-if-newer';
export { isDuplicateKeyError, DUPLICATE_KEY_ERROR_CODE } from './duplicate-key';
export { ensureIndexes } from './ensure-indexes';
export { BatchedInserter } from './batched-inserter';
export type { InsertResult } from './batched-inserter';
export { BatchedUpdater } from './batched-updater';
export { BatchedReader } from './batched-reader';
export type { DocumentId } from './document-id';
export { GroupCommit } from './group-commit';
export { BulkOperationError } from './bulk-write-errors';
export type { GroupCommitOptions, GroupOutcome } from './group-commit';
export type { UpdateResult } from './batched-updater';
