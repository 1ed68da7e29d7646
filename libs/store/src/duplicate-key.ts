/** MongoDB's duplicate key error code (E11000): a write would give a unique index (or `_id`) a key it already holds. */
export const DUPLICATE_KEY_ERROR_CODE = 11000;

/**
 * True when a write failed because a unique index (or `_id`) already holds the key: the one check of E11000 for the
 * whole repository, so "already there" is told apart from every other failure the same way everywhere.
 */
export function isDuplicateKeyError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errmsg } = error as { code?: unknown; errmsg?: unknown };
  if (code === DUPLICATE_KEY_ERROR_CODE) return true;
  // FerretDB 2.7 answers an upserting findAndModify that loses an insert race with PostgreSQL's unique violation
  // as an InternalError (code 1), not E11000; its updates and inserts report E11000 as MongoDB does.
  return (
    code === 1 && typeof errmsg === 'string' && errmsg.startsWith('duplicate key value violates unique constraint')
  );
}
