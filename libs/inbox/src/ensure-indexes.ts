import type { Collection, Document, IndexDescription, IndexSpecification } from 'mongodb';

/**
 * Creates each index of `indexes` that `collection` lacks (by name), one `createIndex` at a time. Use it instead of
 * `createIndexes`: FerretDB 1.24 drops the connection (a server panic) on a multi-index `createIndexes` whose
 * indexes already exist.
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

/** listIndexes on a collection that does not exist yet. */
const NAMESPACE_NOT_FOUND = 26;
