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
 * the error back when it is not a bulk write error (the whole write failed: a network error, say), so no operation
 * is taken as written when nothing was.
 */
export function writeErrorsByIndex(error: unknown): Map<number, BulkOperationError> {
  const writeErrors = (error as { writeErrors?: unknown } | null)?.writeErrors;
  if (writeErrors === undefined || writeErrors === null) throw error;
  const list = (Array.isArray(writeErrors) ? writeErrors : [writeErrors]) as {
    index: number;
    code?: number;
    errmsg?: string;
  }[];
  return new Map(
    list.map((entry) => [
      entry.index,
      new BulkOperationError(entry.index, entry.code, entry.errmsg ?? 'write refused', { cause: error }),
    ]),
  );
}
