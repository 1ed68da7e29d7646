import type { Collection, Document, OptionalUnlessRequiredId } from 'mongodb';
import { createOutboxEntry, type OutboxEntryOptions } from './outbox-entry';
import type { OutboxEntry, OutboxEvent } from './outbox-types';
import { withOutboxDocument } from './with-outbox';

/** Options of {@link insertWithOutbox}. */
export interface InsertWithOutboxOptions<T extends Document> extends OutboxEntryOptions {
  collection: Collection<T>;
  /** The new business document. */
  document: OptionalUnlessRequiredId<T>;
  /** The events its creation publishes. */
  events: readonly OutboxEvent[];
}

/**
 * Inserts a new business document together with the events its creation publishes, in one `insertOne`: both are
 * stored or neither (a duplicate key, for instance, stores no event either).
 */
export async function insertWithOutbox<T extends Document>(
  options: InsertWithOutboxOptions<T>,
): Promise<{ insertedId: unknown; entries: OutboxEntry[] }> {
  const entries = options.events.map((event) => createOutboxEntry(event, options));
  const result = await options.collection.insertOne(
    withOutboxDocument(options.document, entries) as OptionalUnlessRequiredId<T>,
  );
  return { insertedId: result.insertedId, entries };
}
