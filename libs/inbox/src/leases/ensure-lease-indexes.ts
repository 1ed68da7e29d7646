import { ensureIndexes } from '../ensure-indexes';
import type { LeaseCollection } from './lease-types';

/** Creates the index {@link acquireLease} reads through (latest generation of a key). Idempotent. */
export async function ensureLeaseIndexes(options: { leases: LeaseCollection }): Promise<void> {
  await ensureIndexes(options.leases, [{ key: { key: 1, generation: -1 }, name: 'key_generation' }]);
}
