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

/** A running FerretDB: a MongoDB-wire-compatible server (MongoDB 7 semantics for what Berth uses). */
export interface FerretDbHandle {
  /** A `mongodb://` URL for the official driver. */
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
    url: `mongodb://${host}:${port}/`,
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
