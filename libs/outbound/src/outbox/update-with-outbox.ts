import type { Collection, Document, Filter, UpdateFilter } from 'mongodb';
import { createOutboxEntry, type OutboxEntryOptions } from './outbox-entry';
import type { OutboxEntry, OutboxEvent } from './outbox-types';
import { withOutboxUpdate } from './with-outbox';

/** Options of {@link updateWithOutbox}. */
export interface UpdateWithOutboxOptions<T extends Document> extends OutboxEntryOptions {
  collection: Collection<T>;
  /** Selects the one business document (an `_id` filter is best). */
  filter: Filter<T>;
  /** The business change, as update operators. */
  update: UpdateFilter<T>;
  /** The events this change publishes. */
  events: readonly OutboxEvent[];
  /** Insert the document when the filter matches none (the events are stored with it). */
  upsert?: boolean;
}

/** What {@link updateWithOutbox} stored. */
export interface UpdateWithOutboxResult {
  /** Whether a document was updated or upserted; when false, neither the change nor the events were stored. */
  written: boolean;
  /** The entries stored with the change (empty when nothing was written); their ids are the events' idempotency keys. */
  entries: OutboxEntry[];
}

/**
 * "Save my business row and send these events", atomically: one `updateOne` sets the business fields and appends
 * the events to the same document's outbox, so after any crash either both are stored or neither is. The relay
 * (`relayOutbox`, `createOutboxRelay`) sends the events afterwards, at least once each, under their entry ids.
 */
export async function updateWithOutbox<T extends Document>(
  options: UpdateWithOutboxOptions<T>,
): Promise<UpdateWithOutboxResult> {
  const entries = options.events.map((event) => createOutboxEntry(event, options));
  const result = await options.collection.updateOne(options.filter, withOutboxUpdate(options.update, entries), {
    upsert: options.upsert ?? false,
  });
  const written = result.matchedCount > 0 || result.upsertedCount > 0;
  return { written, entries: written ? entries : [] };
}
