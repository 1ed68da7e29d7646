import type { Collection } from 'mongodb';

/**
 * One generation of a lease on a key. A lease is never updated by anyone but its owner and is taken by inserting
 * the next generation: `_id` is `<key>#<generation>`, so of two replicas that try the same generation, the
 * database's unique `_id` lets exactly one win.
 */
export interface LeaseDocument {
  /** `<key>#<generation>`. */
  _id: string;
  /** What is leased: an inbox event key, `billing:<workspaceId>`, … */
  key: string;
  /** 1, 2, 3…: the n-th time the key was leased (for an inbox event: its attempts, and the inbox operations' short leases). */
  generation: number;
  /** Who holds it: a replica id. */
  owner: string;
  acquiredAt: Date;
  /** The lease holds until then unless released; the owner pushes it back with {@link renewLease}. */
  until: Date;
  /** Set when the owner let go before `until`. */
  releasedAt: Date | null;
}

/** A lease this process holds. */
export interface Lease {
  readonly key: string;
  readonly generation: number;
  readonly owner: string;
  /** Until when it holds, as last acquired or renewed. */
  until: Date;
}

/** The lease an inbox row records (its mirror), standing in for that generation's document where it has none. */
export interface RowLease {
  generation: number;
  owner: string | null;
  until: Date | null;
}

/** A collection of lease documents. */
export type LeaseCollection = Collection<LeaseDocument>;

/** The `_id` of a key's lease generation. */
export function leaseDocumentId(key: string, generation: number): string {
  return `${key}#${generation}`;
}

/** The document that records `lease`, taken at `acquiredAt` and not released: what taking a lease inserts. */
export function leaseDocumentOf(lease: Lease, acquiredAt: Date): LeaseDocument {
  const { key, generation, owner, until } = lease;
  return { _id: leaseDocumentId(key, generation), key, generation, owner, acquiredAt, until, releasedAt: null };
}
