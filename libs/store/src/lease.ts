import type { Collection } from 'mongodb';

/**
 * The one document of a lease on a key. It is taken, renewed and released by one conditional write each on its
 * `_id`, so of two replicas racing for it exactly one wins (see `acquireLease`).
 */
export interface LeaseDocument {
  /** What is leased: `billing:<workspaceId>`, `outbox-relay`, … */
  _id: string;
  /** Who holds it, or last held it: a replica id. */
  owner: string;
  /** It holds until then; free once `until` has passed (a release sets it to the time of the release). */
  until: Date;
  /** When its holder took it. */
  takenAt: Date;
  /** When its holder let go before `until`; null while held. */
  releasedAt: Date | null;
}

/** A lease this process holds: the exact lease its renew and release are fenced on. */
export interface Lease {
  readonly key: string;
  readonly owner: string;
  /** Until when it holds, as taken or last renewed. */
  readonly until: Date;
}

/** A collection of lease documents, one per key. */
export type LeaseCollection = Collection<LeaseDocument>;
