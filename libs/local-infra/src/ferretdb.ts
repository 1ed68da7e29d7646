import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getFreePort } from './free-port';
import { spawnManaged, type ManagedProcess } from './managed-process';
import { newStorePassword, startPostgresCluster, STORE_USER, type PostgresCluster } from './postgres-cluster';

/** The DocumentDB extension version the template cluster is made with (deploy/local/install-documentdb.sh). */
export const DOCUMENTDB_VERSION = '0.107-0';

/** Options for {@link startFerretDb}. */
export interface FerretDbOptions {
  /** Folder holding the `ferretdb` binary (see deploy/local/install-tools.sh). */
  binDir: string;
  /** PostgreSQL's binaries; Debian's PostgreSQL 15 when unset. */
  postgresBinDir?: string;
  /**
   * The store's folder: `postgres/` (the cluster) and `ferretdb/` (FerretDB's state). A fresh temporary folder,
   * removed on stop, when unset.
   */
  dataDir?: string;
  /** FerretDB's MongoDB port; a free one when unset. */
  port?: number;
  /** PostgreSQL's port; a free one when unset. */
  postgresPort?: number;
  host?: string;
  /** The password clients authenticate with (user {@link STORE_USER}); a random one when unset. */
  password?: string;
  /** FerretDB's and PostgreSQL's output is appended here (PostgreSQL's to `<logFile>.postgres`). */
  logFile?: string;
  echoPrefix?: string;
}

/**
 * A running embedded store: FerretDB 2 speaking MongoDB's wire protocol over a PostgreSQL cluster of its own with
 * DocumentDB. Clients authenticate (SCRAM) as {@link STORE_USER}; {@link FerretDbHandle.url} carries the password.
 */
export interface FerretDbHandle {
  /** A `mongodb://berth:…@host:port/` URL for the official driver. */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  readonly password: string;
  /** FerretDB's process. */
  readonly process: ManagedProcess;
  /** PostgreSQL's process (the postmaster). */
  readonly postgresProcess: ManagedProcess;
  /** Stops FerretDB, then PostgreSQL (fast shutdown); removes a temporary data folder. */
  stop(): Promise<void>;
  /** SIGKILL to FerretDB and an immediate shutdown of PostgreSQL, as a crash of the store. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data (after stop or kill). */
  restart(): Promise<void>;
}

/** The template cluster for a `ferretdb` binary folder: beside it in the tools cache, per DocumentDB version. */
function templateDirFor(binDir: string): string {
  return join(binDir, '..', `postgres-documentdb-${DOCUMENTDB_VERSION}-template`);
}

/** Starts PostgreSQL with DocumentDB and FerretDB 2 over it on loopback, and waits until FerretDB answers. */
export async function startFerretDb(options: FerretDbOptions): Promise<FerretDbHandle> {
  const host = options.host ?? '127.0.0.1';
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'berth-store-')));
  const stateDir = join(dataDir, 'ferretdb');
  await mkdir(stateDir, { recursive: true });
  const password = options.password ?? newStorePassword();
  const port = options.port ?? (await getFreePort(host));
  const postgresPort = options.postgresPort ?? (await getFreePort(host));

  const startPostgres = (): Promise<PostgresCluster> =>
    startPostgresCluster({
      dataDir: join(dataDir, 'postgres'),
      binDir: options.postgresBinDir,
      templateDir: templateDirFor(options.binDir),
      password,
      host,
      port: postgresPort,
      logFile: options.logFile ? `${options.logFile}.postgres` : undefined,
      echoPrefix: options.echoPrefix ? `${options.echoPrefix}[postgres]` : undefined,
    });

  const startFerret = async (postgres: PostgresCluster): Promise<ManagedProcess> => {
    const proc = spawnManaged({
      command: join(options.binDir, 'ferretdb'),
      args: [
        `--postgresql-url=${postgres.url}`,
        `--listen-addr=${host}:${port}`,
        '--debug-addr=-',
        `--state-dir=${stateDir}`,
        '--telemetry=disable',
        '--log-level=INFO',
        '--log-format=text',
      ],
      logFile: options.logFile,
      echoPrefix: options.echoPrefix,
    });
    try {
      await proc.waitForLine(/Listening on/i, 30000);
    } catch (error) {
      await proc.stop(1000);
      throw error;
    }
    return proc;
  };

  let postgres = await startPostgres();
  let ferret: ManagedProcess;
  try {
    ferret = await startFerret(postgres);
  } catch (error) {
    await postgres.stop();
    throw error;
  }
  return {
    url: `mongodb://${STORE_USER}:${encodeURIComponent(password)}@${host}:${port}/`,
    port,
    dataDir,
    password,
    get process() {
      return ferret;
    },
    get postgresProcess() {
      return postgres.process;
    },
    async stop() {
      await ferret.stop();
      await postgres.stop();
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    },
    async kill() {
      ferret.child.kill('SIGKILL');
      await ferret.exited;
      await postgres.kill();
    },
    async restart() {
      await ferret.stop();
      await postgres.stop();
      postgres = await startPostgres();
      ferret = await startFerret(postgres);
    },
  };
}
