import type { Collection } from 'mongodb';
import type { Clock } from '@berth/contract';
import { upsertIfNewer, type UpsertIfNewerResult } from '@berth/store';
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
  clock: Clock;
}

/**
 * Reads one Stripe object (dispute, refund, early fraud warning) and upserts its summary under its Stripe id. The
 * write carries `stripeFetchedAt` and lands only if no later read was stored, so two events about one object racing
 * each other cannot leave the older state (one guarded upsert, see `upsertIfNewer` of `@berth/store`).
 */
export async function syncStripeObject<T>(options: SyncStripeObjectOptions<T>): Promise<UpsertIfNewerResult> {
  const object = await callStripe(options.what, options.fetch);
  return upsertIfNewer({
    collection: options.collection,
    id: options.id,
    versionField: 'stripeFetchedAt',
    version: options.clock.now(),
    set: options.summarize(object),
  });
}
