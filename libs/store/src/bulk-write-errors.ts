/**
 * The per-operation errors of an unordered bulk write (`insertMany`, `bulkWrite`), by the operation's index. Throws
 * the error back when it is not a bulk write error (the whole write failed: a network error, say), so no operation
 * is taken as written when nothing was.
 */
export function writeErrorsByIndex(error: unknown): Map<number, { index: number; code?: number; errmsg?: string }> {
  const writeErrors = (error as { writeErrors?: unknown } | null)?.writeErrors;
  if (writeErrors === undefined || writeErrors === null) throw error;
  const list = (Array.isArray(writeErrors) ? writeErrors : [writeErrors]) as {
    index: number;
    code?: number;
    errmsg?: string;
  }[];
  return new Map(list.map((entry) => [entry.index, entry]));
}
