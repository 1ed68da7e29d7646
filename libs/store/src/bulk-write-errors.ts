/**
 * One operation of a bulk write that the store refused: the driver's per-operation write error as an `Error`, with
 * the server's `code` and `errmsg` (so `isDuplicateKeyError` reads it as it reads a single write's error) and the
 * bulk write's error as its cause.
 */
export class BulkOperationError extends Error {
  readonly code: number | undefined;
  readonly errmsg: string;

  constructor(
    readonly index: number,
    code: number | undefined,
    errmsg: string,
    options: { cause: unknown },
  ) {
    super(errmsg, options);
    this.name = 'BulkOperationError';
    this.code = code;
    this.errmsg = errmsg;
  }
}

/**
 * The per-operation errors of an unordered bulk write (`insertMany`, `bulkWrite`), by the operation's index. Throws
 * the error back when it names no refused operation, so no operation is taken as written when the write as a whole
 * failed: a network error, or a bulk write error without write errors, which the driver raises for a command that
 * failed part-way (the store going away mid-write) or for a write concern error, where nothing says which
 * operations were applied. Callers also check that the result accounts for every operation (see
 * {@link assertAccounted}).
 */
export function writeErrorsByIndex(error: unknown): Map<number, BulkOperationError> {
  const writeErrors = (error as { writeErrors?: unknown } | null)?.writeErrors;
  if (writeErrors === undefined || writeErrors === null) throw error;
  const list = (Array.isArray(writeErrors) ? writeErrors : [writeErrors]) as {
    index: number;
    code?: number;
    errmsg?: string;
  }[];
  if (list.length === 0) throw error;
  return new Map(
    list.map((entry) => [
      entry.index,
      new BulkOperationError(entry.index, entry.code, entry.errmsg ?? 'write refused', { cause: error }),
    ]),
  );
}

/**
 * Throws `error` back unless the `accounted` operations of a bulk write that threw (the result's counts plus its
 * write errors) cover the `operations` about to be taken as written: a command that failed part-way can come back
 * with write errors for some operations and nothing at all for those it never ran.
 */
export function assertAccounted(error: unknown, accounted: number, operations: number): void {
  if (accounted < operations) throw error;
}
