import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { indexFerretDbIdLookups, watchFerretDbIdLookups, type IdLookupIndexer } from './ferretdb-id-index';
import { getFreePort } from './free-port';
import { spawnManaged, type ManagedProcess } from './managed-process';

/** Options for {@link startFerretDb}. */
export interface FerretDbOptions {
  /** Folder holding the `berth-ferretdb` binary (see deploy/local/install-tools.sh). */
  binDir: string;
  /** SQLite data folder; a fresh temporary folder (removed on stop) when unset. */
  dataDir?: string;
  /** Port; a free one when unset. */
  port?: number;
  host?: string;
  /** Use this PostgreSQL URL as the backend instead of SQLite. */
  postgresqlUrl?: string;
  logFile?: string;
  echoPrefix?: string;
  /**
   * SQLite backend only: how often new collection tables get the `_id` lookup index (see
   * `indexFerretDbIdLookups`), in ms; 0 turns the index off (FerretDB's `_id` lookups then scan). Default 200.
   */
  idIndexIntervalMs?: number;
}

/**
 * The connections each client should open to FerretDB on SQLite (`maxPoolSize` in {@link FerretDbHandle.url}).
 *
 * SQLite lets one transaction write at a time, and FerretDB runs each client operation on a connection of its own:
 * with the driver's default pool (100) a consumer's 16 handlers sent their writes at once, and those that found the
 * write lock taken waited for it (SQLite's busy handler sleeps between tries; FerretDB stayed under one core busy).
 * Measured with `bench:e2e` (0 rows, 1,000 events, Berth alone, one run each): Stripe 211-234 events/s with the
 * default pool, 279 with 8, 238-336 (median 322) with 4, 253-323 with 2, 268 with 1; Clerk 183-205, 215, 199-240,
 * 203-263, 224; FerretDB's CPU per event fell by 10-20%. Four rather than two leaves room beside a slow query
 * (FerretDB scans every filter but `_id`). A client's queue for a connection has no bound (`waitQueueTimeoutMS` 0).
 */
export const FERRETDB_SQLITE_POOL_SIZE = 4;

/** A running FerretDB: a MongoDB-wire-compatible server (MongoDB 7 semantics for what Berth uses). */
export interface FerretDbHandle {
  /**
   * A `mongodb://` URL for the official driver; on SQLite it carries `maxPoolSize=`{@link FERRETDB_SQLITE_POOL_SIZE},
   * which a client's own `maxPoolSize` option overrides.
   */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  readonly process: ManagedProcess;
  stop(): Promise<void>;
  kill(): Promise<void>;
  /** Starts it again on the same port and data (after stop or kill). */
  restart(): Promise<void>;
  /**
   * Gives every collection table that lacks it the `_id` lookup index now, rather than at the next pass of the
   * watcher; returns the tables indexed. Call it after creating collections when the next queries must use it (the
   * hot-path explain test does). Nothing to do on the PostgreSQL backend.
   */
  indexIdLookups(): string[];
}

/** Starts FerretDB v1.24 on loopback (SQLite backend unless a PostgreSQL URL is given) and waits until it listens. */
export async function startFerretDb(options: FerretDbOptions): Promise<FerretDbHandle> {
  const host = options.host ?? '127.0.0.1';
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'berth-ferretdb-')));
  await mkdir(join(dataDir, 'sqlite'), { recursive: true });
  const port = options.port ?? (await getFreePort(host));
  const sqliteDir = join(dataDir, 'sqlite');
  const intervalMs = options.postgresqlUrl ? 0 : (options.idIndexIntervalMs ?? 200);
  let indexer: IdLookupIndexer | undefined;

  const launch = async (): Promise<ManagedProcess> => {
    // Tables of earlier runs are indexed before FerretDB starts: a big table's index build then blocks nobody.
    if (intervalMs > 0) indexFerretDbIdLookups(sqliteDir);
    const backend = options.postgresqlUrl
      ? ['-handler=postgresql', `-postgresql-url=${options.postgresqlUrl}`]
      : ['-handler=sqlite', `-sqlite-url=file:${join(dataDir, 'sqlite')}/`];
    const proc = spawnManaged({
      command: join(options.binDir, 'berth-ferretdb'),
      args: [...backend, `-listen-addr=${host}:${port}`, '-log-level=warn'],
      logFile: options.logFile,
      echoPrefix: options.echoPrefix,
    });
    try {
      await proc.waitForLine(/Listening on/i, 30000);
    } catch (error) {
      await proc.stop(1000);
      throw error;
    }
    if (intervalMs > 0) indexer = watchFerretDbIdLookups({ sqliteDir, intervalMs });
    return proc;
  };

  let current = await launch();
  return {
    url: `mongodb://${host}:${port}/${options.postgresqlUrl ? '' : `?maxPoolSize=${FERRETDB_SQLITE_POOL_SIZE}`}`,
    port,
    dataDir,
    get process() {
      return current;
    },
    async stop() {
      indexer?.stop();
      await current.stop();
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    },
    async kill() {
      indexer?.stop();
      current.child.kill('SIGKILL');
      await current.exited;
    },
    async restart() {
      indexer?.stop();
      await current.stop();
      current = await launch();
    },
    indexIdLookups() {
      return indexer?.indexNow() ?? [];
    },
  };
}
