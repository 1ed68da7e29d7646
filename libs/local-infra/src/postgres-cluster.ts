import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, cp, mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { getFreePort } from './free-port';
import { spawnManaged, type ManagedProcess } from './managed-process';

const run = promisify(execFile);

/** The PostgreSQL role FerretDB connects as; MongoDB clients authenticate as it too (FerretDB 2 maps users 1:1). */
export const STORE_USER = 'berth';

/** Where Debian's PostgreSQL 15 keeps `initdb`, `postgres` and `psql` (deploy/local/install-documentdb.sh prints it). */
export const DEFAULT_POSTGRES_BIN_DIR = '/usr/lib/postgresql/15/bin';

/** The settings DocumentDB needs (see deploy/local/install-documentdb.sh), written into each cluster's configuration. */
const DOCUMENTDB_SETTINGS: ReadonlyArray<readonly [string, string]> = [
  ['shared_preload_libraries', 'pg_cron,pg_documentdb_core,pg_documentdb'],
  ['cron.database_name', 'postgres'],
  // Debian's pg_cron 1.4 has no schedules in seconds, which DocumentDB's default index-build schedule uses.
  ['documentdb.indexBuildScheduleInSec', '60'],
  // Compound filters (`{ _id, leaseUntil }`) use the composite index operator class: an index search, not a scan.
  ['documentdb.defaultUseCompositeOpClass', 'on'],
  ['documentdb_core.enableCollation', 'on'],
  ['max_connections', '200'],
  // Durability as MongoDB's journaled writes: every commit is flushed before it is acknowledged.
  ['fsync', 'on'],
  ['synchronous_commit', 'on'],
  ['full_page_writes', 'on'],
  // A large inbox's indexes stay in memory, and checkpoints come seldom enough that the WAL is not mostly the full
  // page images of the first change of each page after one (compressed when they are written).
  ['shared_buffers', '512MB'],
  ['max_wal_size', '4GB'],
  ['checkpoint_timeout', '15min'],
  ['wal_compression', 'on'],
];

/** Options for {@link startPostgresCluster}. */
export interface PostgresClusterOptions {
  /** The cluster's data folder; created from the template when it holds no cluster. */
  dataDir: string;
  /** PostgreSQL's binaries; {@link DEFAULT_POSTGRES_BIN_DIR} when unset. */
  binDir?: string;
  /** An initialised cluster with DocumentDB created, copied for each new data folder; made on first use. */
  templateDir: string;
  /** The password of {@link STORE_USER}, set at every start. */
  password: string;
  host?: string;
  port?: number;
  logFile?: string;
  echoPrefix?: string;
}

/** A running PostgreSQL cluster of its own, on loopback, with the DocumentDB extension. */
export interface PostgresCluster {
  readonly port: number;
  /** `postgres://berth:…@host:port/postgres`, the URL FerretDB is given. */
  readonly url: string;
  readonly process: ManagedProcess;
  /** Fast shutdown (SIGINT): open sessions are ended, everything committed is on disk. */
  stop(): Promise<void>;
  /** Immediate shutdown (SIGQUIT), as a crash: the next start replays the write-ahead log. */
  kill(): Promise<void>;
}

/** The OS user PostgreSQL runs as: itself, or `postgres` when started by root (PostgreSQL refuses root). */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  return { uid: Number(stdout.trim()), gid: Number(gid.trim()) };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Gives every folder above `dataDir` the search bit for others where it lacks it (`chmod o+x`, no read bit), so the
 * server user can reach a data folder under a temporary folder that root made private (`mkdtemp` makes 0700).
 */
async function letServerUserReach(dataDir: string): Promise<void> {
  for (let folder = dirname(dataDir); folder !== dirname(folder); folder = dirname(folder)) {
    const { mode } = await stat(folder);
    if ((mode & 0o001) === 0) await chmod(folder, (mode & 0o7777) | 0o001);
  }
}

async function chownTree(path: string, owner: { uid: number; gid: number } | undefined): Promise<void> {
  if (!owner) return;
  await run('chown', ['-R', `${owner.uid}:${owner.gid}`, path]);
}

/**
 * Makes the template cluster once: initdb, DocumentDB created in `postgres`, shut down cleanly. Made in a temporary
 * folder (the server user may not reach the tools cache, `~` of root), copied beside its final path and renamed into
 * place, so concurrent test files racing to make it each get a whole one.
 */
async function ensureTemplate(
  templateDir: string,
  binDir: string,
  owner?: { uid: number; gid: number },
): Promise<void> {
  if (await exists(join(templateDir, 'PG_VERSION'))) return;
  await mkdir(dirname(templateDir), { recursive: true });
  const work = await mkdtemp(join(tmpdir(), 'berth-pg-template-'));
  const staged = `${templateDir}.tmp-${randomBytes(6).toString('hex')}`;
  const dataDir = join(work, 'data');
  try {
    const pwFile = join(work, 'pw');
    await writeFile(pwFile, randomBytes(16).toString('hex'), { mode: 0o600 });
    await chownTree(work, owner);
    await runAs(owner, join(binDir, 'initdb'), [
      '-D',
      dataDir,
      '-U',
      STORE_USER,
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      `--pwfile=${pwFile}`,
      '-E',
      'UTF8',
      '--locale=C.UTF-8',
    ]);
    const cluster = await launch({ dataDir, binDir, owner, host: '127.0.0.1', port: await getFreePort() });
    try {
      await psql(cluster.socketDir, cluster.port, binDir, owner, 'CREATE EXTENSION IF NOT EXISTS documentdb CASCADE');
    } finally {
      await cluster.process.stop(30000, 'SIGINT');
      await rm(cluster.socketDir, { recursive: true, force: true });
    }
    await cp(dataDir, staged, { recursive: true, preserveTimestamps: true });
    await rename(staged, templateDir).catch(async (error: NodeJS.ErrnoException) => {
      if (!(await exists(join(templateDir, 'PG_VERSION')))) throw error;
    });
  } finally {
    await rm(work, { recursive: true, force: true });
    await rm(staged, { recursive: true, force: true });
  }
}

async function runAs(owner: { uid: number; gid: number } | undefined, command: string, args: string[]): Promise<void> {
  await run(command, args, { ...(owner ?? {}), maxBuffer: 16 * 1024 * 1024 });
}

async function psql(
  socketDir: string,
  port: number,
  binDir: string,
  owner: { uid: number; gid: number } | undefined,
  sql: string,
): Promise<void> {
  await runAs(owner, join(binDir, 'psql'), [
    '-X',
    '-q',
    '-v',
    'ON_ERROR_STOP=1',
    '-h',
    socketDir,
    '-p',
    String(port),
    '-U',
    STORE_USER,
    '-d',
    'postgres',
    '-c',
    sql,
  ]);
}

interface Launched {
  process: ManagedProcess;
  port: number;
  socketDir: string;
}

/**
 * Starts `postgres` on the data folder: TCP on loopback with passwords (scram-sha-256), and a Unix socket in a
 * private folder (mode 0700, trusted) through which only this user sets the password.
 */
async function launch(options: {
  dataDir: string;
  binDir: string;
  owner?: { uid: number; gid: number };
  host: string;
  port: number;
  password?: string;
  logFile?: string;
  echoPrefix?: string;
}): Promise<Launched> {
  const socketDir = await mkdtemp(join(tmpdir(), 'berth-pg-'));
  // DocumentDB opens connections of its own from inside the server (an `explain`, an index build) that carry no
  // password ("fe_sendauth: no password supplied"); libpq in those backends reads this password file.
  const passFile = join(socketDir, 'pgpass');
  if (options.password !== undefined) {
    await writeFile(passFile, `*:*:*:${STORE_USER}:${options.password.replace(/[:\\]/g, '\\$&')}\n`, { mode: 0o600 });
  }
  await chownTree(socketDir, options.owner);
  const settings: ReadonlyArray<readonly [string, string]> = [
    ...DOCUMENTDB_SETTINGS,
    ['listen_addresses', options.host],
    ['unix_socket_directories', socketDir],
  ];
  const proc = spawnManaged({
    command: join(options.binDir, 'postgres'),
    args: [
      '-D',
      options.dataDir,
      '-p',
      String(options.port),
      ...settings.flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    logFile: options.logFile,
    echoPrefix: options.echoPrefix,
    // Nothing of the caller's environment: the server needs none, and gets no secret it does not use.
    env: { PGPASSFILE: passFile },
    ...(options.owner ?? {}),
  });
  try {
    await proc.waitForLine(/database system is ready to accept connections/, 60000);
  } catch (error) {
    await proc.stop(2000, 'SIGQUIT');
    await rm(socketDir, { recursive: true, force: true });
    throw error;
  }
  return { process: proc, port: options.port, socketDir };
}

/**
 * Starts a PostgreSQL cluster of its own with DocumentDB, for FerretDB: a new data folder is a copy of the template
 * (made once per installation: initdb and `CREATE EXTENSION documentdb` take seconds, a copy a fraction of one).
 */
export async function startPostgresCluster(options: PostgresClusterOptions): Promise<PostgresCluster> {
  const binDir = options.binDir ?? DEFAULT_POSTGRES_BIN_DIR;
  const host = options.host ?? '127.0.0.1';
  const owner = await serverUser();
  const port = options.port ?? (await getFreePort(host));
  if (!(await exists(join(options.dataDir, 'PG_VERSION')))) {
    await ensureTemplate(options.templateDir, binDir, owner);
    await mkdir(dirname(options.dataDir), { recursive: true });
    await cp(options.templateDir, options.dataDir, { recursive: true, preserveTimestamps: true });
    await chownTree(options.dataDir, owner);
    await chmod(options.dataDir, 0o700);
  }
  if (owner) await letServerUserReach(options.dataDir);
  const launched = await launch({
    dataDir: options.dataDir,
    binDir,
    owner,
    host,
    port,
    password: options.password,
    logFile: options.logFile,
    echoPrefix: options.echoPrefix,
  });
  const cleanup = async (): Promise<void> => {
    await rm(launched.socketDir, { recursive: true, force: true });
  };
  try {
    await psql(
      launched.socketDir,
      port,
      binDir,
      owner,
      `ALTER ROLE ${STORE_USER} PASSWORD '${options.password.replace(/'/g, "''")}'`,
    );
  } catch (error) {
    await launched.process.stop(5000, 'SIGINT');
    await cleanup();
    throw error;
  }
  return {
    port,
    url: `postgres://${STORE_USER}:${encodeURIComponent(options.password)}@${host}:${port}/postgres`,
    process: launched.process,
    async stop() {
      await launched.process.stop(30000, 'SIGINT');
      await cleanup();
    },
    async kill() {
      await launched.process.stop(5000, 'SIGQUIT');
      await cleanup();
    },
  };
}

/** A password for a new store: 24 random bytes, URL-safe. */
export function newStorePassword(): string {
  return randomBytes(24).toString('base64url');
}
