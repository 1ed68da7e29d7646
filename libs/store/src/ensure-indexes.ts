import type { Collection, Document, IndexDescription, IndexSpecification } from 'mongodb';

/** The error code of `listIndexes` on a collection that does not exist yet. */
const NAMESPACE_NOT_FOUND = 26;

/**
 * Creates each index of `indexes` that `collection` lacks, by name, one `createIndex` at a time. Idempotent, so every
 * service calls it at start for the indexes it reads through. An index whose name exists is left as it is (its key
 * and options are not compared): changing an index means giving it a new name.
 */
export async function ensureIndexes<T extends Document>(
  collection: Collection<T>,
  indexes: IndexDescription[],
): Promise<void> {
  const existing = new Set<string>();
  try {
    for (const index of await collection.listIndexes().toArray()) existing.add(String(index.name));
  } catch (error) {
    if ((error as { code?: number }).code !== NAMESPACE_NOT_FOUND) throw error;
  }
  for (const { key, ...options } of indexes) {
    if (options.name && existing.has(options.name)) continue;
    await collection.createIndex(key as IndexSpecification, options);
  }
}
