import type { Clock } from '../types';
import { leaseDocumentId, type Lease, type LeaseCollection } from './lease-types';

/**
 * True when another holder may have taken over from `lease`: it has expired (by `clock`) and the next generation
 * exists. While a lease is live nobody can take the next generation (they see it held), so the common case costs no
 * read; only an expired lease is checked, by one `{ _id }` lookup.
 */
export async function leaseSuperseded(leases: LeaseCollection, lease: Lease, clock: Clock): Promise<boolean> {
  if (lease.until.getTime() > clock().getTime()) return false;
  return (await leases.findOne({ _id: leaseDocumentId(lease.key, lease.generation + 1) })) !== null;
}
