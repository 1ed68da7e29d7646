import type { RowLease } from './leases/lease-types';
import type { InboxEventDocument } from './types';

/** The row fields a lease lookup needs: project these wherever a row is read to take its lease. */
export const ROW_LEASE_FIELDS = { leaseGeneration: 1, leaseOwner: 1, leaseUntil: 1 } as const;

/** The row fields {@link rowLeaseOf} reads. */
export type RowLeaseFields = Pick<InboxEventDocument, 'leaseGeneration' | 'leaseOwner' | 'leaseUntil'>;

/**
 * The lease an event row records (`leaseGeneration` with its mirror `leaseOwner`, `leaseUntil`), for
 * `acquireLease`'s `rowLease`: where that generation has no lease document, because the retention deleted it or
 * because an earlier version of Berth kept a first attempt's lease in the row it inserted (a rolling upgrade meets
 * such rows in flight). Undefined for a row no attempt has claimed.
 */
export function rowLeaseOf(row: RowLeaseFields): RowLease | undefined {
  if (!row.leaseGeneration) return undefined;
  return { generation: row.leaseGeneration, owner: row.leaseOwner ?? null, until: row.leaseUntil ?? null };
}
