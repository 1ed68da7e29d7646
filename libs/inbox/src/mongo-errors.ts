/** MongoDB's duplicate key error code (E11000), returned by MongoDB and FerretDB alike. */
export const DUPLICATE_KEY_ERROR_CODE = 11000;

/** True when a write failed because a unique index (or `_id`) already holds the key. */
export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === DUPLICATE_KEY_ERROR_CODE;
}
