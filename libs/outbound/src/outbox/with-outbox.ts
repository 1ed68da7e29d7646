import type { Document, UpdateFilter } from 'mongodb';
import { OUTBOX_FIELD, type OutboxEntry } from './outbox-types';

/**
 * Adds the entries to an update, as `$push: { _outbox: { $each: entries } }` beside the caller's own operators, so
 * one `updateOne` writes the business fields and the events together: a single-document write, which MongoDB
 * applies atomically, so both land or neither does.
 *
 * @throws RangeError when the update already touches the outbox field or is a replacement or pipeline.
 */
export function withOutboxUpdate<T extends Document>(
  update: UpdateFilter<T>,
  entries: readonly OutboxEntry[],
): UpdateFilter<T> {
  if (Array.isArray(update) || Object.keys(update).some((key) => !key.startsWith('$'))) {
    throw new RangeError(
      'withOutboxUpdate takes an update made of operators ($set, $inc, …), not a replacement or pipeline',
    );
  }
  for (const [operator, fields] of Object.entries(update)) {
    if (
      fields &&
      typeof fields === 'object' &&
      Object.keys(fields).some((path) => path === OUTBOX_FIELD || path.startsWith(`${OUTBOX_FIELD}.`))
    ) {
      throw new RangeError(`the update's ${operator} touches ${OUTBOX_FIELD}, which belongs to the outbox`);
    }
  }
  const push = { ...(update.$push as Document | undefined), [OUTBOX_FIELD]: { $each: [...entries] } };
  return { ...update, $push: push } as unknown as UpdateFilter<T>;
}

/**
 * The document to insert for a new business row that comes with events: the row plus the outbox field holding them.
 *
 * @throws RangeError when the document already has an outbox field.
 */
export function withOutboxDocument<T extends Document>(
  document: T,
  entries: readonly OutboxEntry[],
): T & { _outbox: OutboxEntry[] } {
  if (OUTBOX_FIELD in document)
    throw new RangeError(`the document already has ${OUTBOX_FIELD}, which belongs to the outbox`);
  return { ...document, [OUTBOX_FIELD]: [...entries] };
}
