import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';

/**
 * The expression FerretDB 1.24 (SQLite backend) compares when it pushes a `{ _id: <string or ObjectId> }` filter
 * down to SQLite. Its own unique `_id` index is built on `_ferretdb_sjson->"_id"`: the same value, but not the same
 * expression to SQLite's planner, which therefore scans the whole table for every `findOne`/`updateOne`/`deleteOne`
 * by `_id` (measured: 9 lookups/s at 50,000 rows, against about 1,000/s through an index on this expression).
 */
export const FERRETDB_ID_EXPRESSION = "_ferretdb_sjson->'$._id'";

/** Suffix of the index names this module creates, beside FerretDB's own `<table>__id_`. */
const INDEX_SUFFIX = '__berth_id_lookup';

/** How long a pass waits for FerretDB's writer to let go of a database file before giving up on it until the next pass. */
const BUSY_TIMEOUT_MS = 5000;

type SqliteModule = typeof import('node:sqlite');

/**
 * `node:sqlite` (Node 22), loaded on first use only, so that importing `@berth/local-infra` stays free of its
 * experimental-feature warning for code that never starts FerretDB.
 */
function sqlite(): SqliteModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load, for the reason above
  return require('node:sqlite') as SqliteModule;
}

/**
 * Creates, for every collection table of every FerretDB SQLite database in `sqliteDir` that lacks it, a plain
 * (non-unique) index on {@link FERRETDB_ID_EXPRESSION}, so that FerretDB's `_id` lookups become SQLite index searches.
 * Returns the names of the tables indexed by this call.
 *
 * Non-unique on purpose: FerretDB's own unique `_id` index still enforces uniqueness and produces the duplicate key
 * errors clients rely on; this index only serves reads. FerretDB keeps its catalogue (collections, their indexes) in
 * the table `_ferretdb_collections` of each database file and never sees this index in `listIndexes`; dropping the
 * collection drops the table and the index with it. Safe while FerretDB runs: a new table is small when it is first
 * seen, SQLite builds the index inside one short write transaction, FerretDB waits on the lock (its busy timeout)
 * and re-prepares its statements after the schema change.
 */
export function indexFerretDbIdLookups(sqliteDir: string): string[] {
  const created: string[] = [];
  for (const file of databaseFiles(sqliteDir)) created.push(...indexDatabase(join(sqliteDir, file)));
  return created;
}

function databaseFiles(sqliteDir: string): string[] {
  try {
    return readdirSync(sqliteDir).filter((name) => name.endsWith('.sqlite'));
  } catch {
    return [];
  }
}

/** Indexes the tables of one database file that lack the index; a file FerretDB is still creating is left for the next pass. */
function indexDatabase(path: string): string[] {
  let missing: string[];
  const reader = open(path, true);
  if (!reader) return [];
  try {
    missing = missingTables(reader);
  } catch {
    return []; // no catalogue yet: FerretDB is creating the file
  } finally {
    reader.close();
  }
  if (missing.length === 0) return [];
  const writer = open(path, false);
  if (!writer) return [];
  try {
    writer.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    for (const table of missing) {
      writer.exec(
        `CREATE INDEX IF NOT EXISTS ${quote(table + INDEX_SUFFIX)} ON ${quote(table)} (${FERRETDB_ID_EXPRESSION})`,
      );
    }
    return missing;
  } catch {
    return []; // busy for longer than the timeout, or the table was dropped meanwhile: the next pass tries again
  } finally {
    writer.close();
  }
}

function open(path: string, readOnly: boolean): DatabaseSync | undefined {
  try {
    return new (sqlite().DatabaseSync)(path, { readOnly });
  } catch {
    return undefined;
  }
}

/** Collection tables of FerretDB's catalogue that exist and have no index of this module. */
function missingTables(db: DatabaseSync): string[] {
  const tables = db
    .prepare('SELECT table_name FROM _ferretdb_collections')
    .all()
    .map((row) => String(row.table_name));
  const schema = db.prepare("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'index')").all();
  const existing = new Set(schema.filter((row) => row.type === 'table').map((row) => String(row.name)));
  const indexed = new Set(schema.filter((row) => row.type === 'index').map((row) => String(row.name)));
  return tables.filter((table) => existing.has(table) && !indexed.has(table + INDEX_SUFFIX));
}

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}

/** A running {@link watchFerretDbIdLookups}. */
export interface IdLookupIndexer {
  /** Runs a pass now (after creating collections, say) and resolves with the tables it indexed. */
  indexNow(): string[];
  /** Stops watching. */
  stop(): void;
}

/**
 * Runs {@link indexFerretDbIdLookups} every `intervalMs`, so that collections created while FerretDB runs (services
 * create theirs at start, tests create databases as they go) get the index within that time, while still small.
 */
export function watchFerretDbIdLookups(options: {
  sqliteDir: string;
  intervalMs: number;
  onError?: (error: unknown) => void;
}): IdLookupIndexer {
  const pass = (): string[] => {
    try {
      return indexFerretDbIdLookups(options.sqliteDir);
    } catch (error) {
      options.onError?.(error);
      return [];
    }
  };
  const timer = setInterval(pass, options.intervalMs);
  timer.unref();
  return {
    indexNow: pass,
    stop: () => clearInterval(timer),
  };
}
