import type { Collection } from 'mongodb';
import { upsertIfNewer, type Clock, type UpsertIfNewerResult, type VersionLocks } from '@berth/inbox';
import { callStripe } from '../stripe/call-stripe';
import type { StripeObjectDocument } from '../workspaces/collections';

/** Options for {@link syncStripeObject}. */
export interface SyncStripeObjectOptions<T> {
  collection: Collection<StripeObjectDocument>;
  /** The Stripe id, the document's `_id`. */
  id: string;
  /** Names the call in errors: `dispute du_123`. */
  what: string;
  /** Reads the object from Stripe as it is now. */
  fetch: () => Promise<T>;
  /** The fields stored. */
  summarize: (object: T) => Record<string, unknown>;
  /** The version leases, the same object for every write of the process (see `upsertIfNewer`). */
  locks: VersionLocks;
  /** This replica's id. */
  owner: string;
  clock: Clock;
}

/**
 * Reads one Stripe object (dispute, refund, early fraud warning) and upserts its summary under its Stripe id. The
 * write carries `stripeFetchedAt` and lands only if no later read was stored, so two events about one object racing
 * each other cannot leave the older state.
 */
export async function syncStripeObject<T>(options: SyncStripeObjectOptions<T>): Promise<UpsertIfNewerResult> {
  const object = await callStripe(options.what, options.fetch);
  return upsertIfNewer({
    collection: options.collection,
    locks: options.locks,
    owner: options.owner,
    clock: options.clock,
    id: options.id,
    versionField: 'stripeFetchedAt',
    version: options.clock(),
    set: options.summarize(object),
  });
}
