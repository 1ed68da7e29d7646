import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnManaged, type ManagedProcess } from './managed-process';

/** Options for {@link startNatsServer}. */
export interface NatsServerOptions {
  /** Folder holding the `nats-server` binary (see deploy/local/install-tools.sh). */
  binDir: string;
  /** JetStream store folder; a fresh temporary folder (removed on stop) when unset. */
  dataDir?: string;
  /** Client port; the server picks a free one when unset. */
  port?: number;
  host?: string;
  /** Also open the HTTP monitoring port (free port chosen by the server). */
  monitoring?: boolean;
  logFile?: string;
  echoPrefix?: string;
  /** Server name, which also names the JetStream domain's node. */
  serverName?: string;
  /**
   * Go scheduler threads of the server (`GOMAXPROCS`), default 1. A local server shares its machine's few cores
   * with the services, and JetStream stores a stream's messages on one goroutine anyway. Measured on 2 cores
   * under bench:ingest: with one thread nats-server spent about 20% less CPU per stored event and the gateway's
   * requests/s rose about 10%, against Go's default of one thread per core. A server with cores of its own (the
   * Kubernetes deployment) keeps Go's default.
   */
  maxProcs?: number;
  /**
   * More configuration, appended as is: e.g. deploy/nats/auth.conf's `authorization { users … }`, so that a test runs
   * the server with Berth's NATS users. Unset: no authentication (the default).
   */
  extraConfig?: string;
  /**
   * Configuration variables defined at the top of the file (`NAME: "value"`), which `$NAME` in {@link extraConfig}
   * refers to: the passwords auth.conf reads, without putting them on a command line or in an environment.
   */
  configVariables?: Record<string, string>;
  /**
   * JetStream's file store limit (`max_file_store`), default `20GB` as compose runs it. JetStream reserves each
   * file stream's `max_bytes` against it; tests of the reservation refusal ("insufficient storage resources") set
   * a small one.
   */
  maxFileStore?: string;
  /** Joins a cluster: route listener and routes (see {@link startNatsCluster}); a single server when unset. */
  cluster?: NatsClusterConfig;
}

/** The `cluster { … }` block of one node: its route port and every node's route URL (its own included). */
export interface NatsClusterConfig {
  /** Cluster name, also the name JetStream's meta group reports. */
  name: string;
  /** This node's route port. */
  port: number;
  /** `nats-route://host:port` of every node. */
  routes: string[];
}

/** A running nats-server with JetStream, fsyncing every write before it acknowledges. */
export interface NatsServerHandle {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** Monitoring base URL (http://host:port) when `monitoring` was asked for. */
  readonly monitoringUrl?: string;
  readonly process: ManagedProcess;
  /** Stops the server; removes its data folder when this library created it. */
  stop(): Promise<void>;
  /** Kills the server with SIGKILL, as a crash would, keeping the data. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and data folder (after stop or kill). */
  restart(): Promise<void>;
}

/**
 * The JetStream settings Berth relies on: `sync_interval: always` makes the server fsync each write before the
 * PubAck, so a 200 from the gateway survives a power cut (the default lazy fsync lost acknowledged writes in the
 * Jepsen analysis of NATS 2.12.1).
 */
export function natsServerConfig(options: {
  host: string;
  port: number;
  dataDir: string;
  monitoring: boolean;
  serverName: string;
  maxFileStore?: string;
  extraConfig?: string;
  configVariables?: Record<string, string>;
  cluster?: NatsClusterConfig;
}): string {
  const cluster = options.cluster;
  return [
    ...Object.entries(options.configVariables ?? {}).map(([name, value]) => `${name}: ${JSON.stringify(value)}`),
    `server_name: ${JSON.stringify(options.serverName)}`,
    `listen: "${options.host}:${options.port}"`,
    options.monitoring ? `http: "${options.host}:-1"` : '',
    'max_payload: 2MB',
    'jetstream {',
    `  store_dir: ${JSON.stringify(options.dataDir)}`,
    '  sync_interval: always',
    '  max_memory_store: 256MB',
    `  max_file_store: ${options.maxFileStore ?? '20GB'}`,
    '}',
    ...(cluster
      ? [
          'cluster {',
          `  name: ${JSON.stringify(cluster.name)}`,
          `  listen: "${options.host}:${cluster.port}"`,
          `  routes: [${cluster.routes.map((route) => JSON.stringify(route)).join(', ')}]`,
          '}',
        ]
      : []),
    options.extraConfig ?? '',
    '',
  ].join('\n');
}

/** The monitor's address as logged (with or without `http://`, `0.0.0.0` or the host) as a base URL on `host`. */
function monitoringBaseUrl(logged: string, host: string): string {
  return (/^https?:\/\//.test(logged) ? logged : `http://${logged}`).replace(/^http:\/\/0\.0\.0\.0/, `http://${host}`);
}

/** Starts nats-server with JetStream on loopback and resolves once it reports "Server is ready". */
export async function startNatsServer(options: NatsServerOptions): Promise<NatsServerHandle> {
  if (options.maxProcs !== undefined && (!Number.isInteger(options.maxProcs) || options.maxProcs < 1)) {
    throw new TypeError(`maxProcs must be a positive integer, got ${options.maxProcs}`);
  }
  const host = options.host ?? '127.0.0.1';
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'berth-nats-')));
  await mkdir(dataDir, { recursive: true });
  const configFile = join(dataDir, 'nats-server.conf');
  let port = options.port ?? -1;
  let monitoringUrl: string | undefined;

  const launch = async (): Promise<ManagedProcess> => {
    const config = natsServerConfig({
      host,
      port,
      dataDir: join(dataDir, 'jetstream'),
      monitoring: !!options.monitoring,
      serverName: options.serverName ?? 'berth-local',
      maxFileStore: options.maxFileStore,
      extraConfig: options.extraConfig,
      configVariables: options.configVariables,
      cluster: options.cluster,
    });
    await writeFile(configFile, config, { mode: 0o600 });
    // `env` adds GOMAXPROCS to the environment the server inherits, then becomes the server (exec: same pid).
    const proc = spawnManaged({
      command: 'env',
      args: [`GOMAXPROCS=${options.maxProcs ?? 1}`, join(options.binDir, 'nats-server'), '-c', configFile],
      logFile: options.logFile,
      echoPrefix: options.echoPrefix,
    });
    const listening = proc.waitForLine(/Listening for client connections on [^:]+:(\d+)/, 30000);
    const http = options.monitoring ? proc.waitForLine(/Starting http monitor on (\S+)/, 30000) : undefined;
    try {
      const match = await listening;
      port = Number(match[1]);
      if (http) monitoringUrl = monitoringBaseUrl((await http)[1], host);
      await proc.waitForLine(/Server is ready/, 30000);
    } catch (error) {
      await proc.stop(1000);
      throw error;
    }
    return proc;
  };

  let current = await launch();
  const handle: NatsServerHandle = {
    get url() {
      return `nats://${host}:${port}`;
    },
    get port() {
      return port;
    },
    dataDir,
    get monitoringUrl() {
      return monitoringUrl;
    },
    get process() {
      return current;
    },
    async stop() {
      await current.stop();
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    },
    async kill() {
      current.child.kill('SIGKILL');
      await current.exited;
    },
    async restart() {
      await current.stop();
      current = await launch();
    },
  };
  return handle;
}
