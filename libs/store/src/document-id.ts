import type { ObjectId } from 'mongodb';

/** A document `_id` the group commits key by: a string or an ObjectId. */
export type DocumentId = string | ObjectId;

/**
 * One string per `_id` value, for telling `_id`s apart in a Map or Set: two ObjectId instances of the same id give
 * the same key, and a string never gives an ObjectId's key, even when it spells the same hex digits.
 */
export function documentIdKey(id: unknown): string {
  return typeof id === 'string' ? `s:${id}` : `o:${String(id)}`;
}
