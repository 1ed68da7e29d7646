/**
 * The local mesh of `npm start`, without Docker: nats-server and the embedded store (FerretDB 2 over a PostgreSQL
 * cluster of its own with DocumentDB) on loopback with data in the data folder
 * (unless NATS_URL / MONGO_URL point elsewhere), a Stripe API stand-in when no STRIPE_API_BASE is given, and every
 * service docker-compose.yml declares with the environment compose gives it, each supervised (restarted with backoff
 * when it exits unexpectedly). Writes what it chose to `<data>/berth-local.json` (mode 0600) for the CLI.
 * Its nats-server runs Berth's NATS users (deploy/nats/auth.conf, as compose and Kubernetes do) with the passwords
 * of `<data>/local-secrets.json`; each service connects as its own user, the CLI and the `nats` runbook as the
 * operator (the NATS URL in berth-local.json carries the operator's credentials).
 * `BERTH_NATS_CLUSTER=3` starts a three-node JetStream cluster instead of one nats-server (same settings and users,
 * every node's URL in each service's NATS_URL, `STREAM_REPLICAS=3`), and `BERTH_SCALE=billing-sync=3,gateway=2`
 * runs that many replicas of a service, each on its own ports, all listed in berth-local.json.
 * `npm run soak` runs the same mesh in its own process to break it on purpose.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { mongoDatabaseName, writeLocalMesh, type HealthTarget, type LocalMesh } from '@berth/config';
import {
  getFreePort,
  startFerretDb,
  startNatsCluster,
  startNatsServer,
  type FerretDbHandle,
  type NatsClusterHandle,
  type NatsServerHandle,
} from '@berth/local-infra';
import { readNativeServices, toLoopback } from './compose-services';
import { localSecrets } from './local-secrets';
import {
  authConfOptions,
  NATS_USERS,
  natsUrlAs,
  natsUserOf,
  passwordVariable,
  permissionViolations,
  type NatsUser,
} from './nats-users';
import { Supervisor, type SupervisorOptions } from './supervisor';

const range = (count: number): number[] => Array.from({ length: count }, (_, index) => index);

export const repositoryRoot = resolve(__dirname, '..', '..');

/** Options for {@link startLocalMesh}. */
export interface LocalMeshOptions {
  /** The environment, as `npm start` got it. */
  env: NodeJS.ProcessEnv;
  /** Data folder (nats, ferretdb, logs, berth-local.json); `BERTH_DATA_DIR` or `.data/` by default. */
  dataDir?: string;
  /** Free ports for every server and service instead of the fixed local ones (tests, the soak). */
  freePorts?: boolean;
  supervisor?: SupervisorOptions;
  /** Where the mesh's own notes go (default: stdout). */
  write?: (line: string) => void;
}

/** A running local mesh. */
export interface LocalMeshHandle {
  readonly mesh: LocalMesh;
  readonly file: string;
  readonly nats?: NatsServerHandle;
  /** The JetStream cluster started here instead of {@link nats} (`BERTH_NATS_CLUSTER`). */
  readonly natsCluster?: NatsClusterHandle;
  readonly mongo?: FerretDbHandle;
  readonly services: Supervisor;
  /**
   * The permission violations the nats-server started here logged (its log `<data>/nats.log`, appended to across
   * runs); none when NATS_URL pointed elsewhere.
   */
  natsViolations(): string[];
  /** Services drain and stop first, then the stand-in, then the servers; the file is removed. */
  stop(): Promise<void>;
}

/**
 * `BERTH_SCALE` (`billing-sync=3,gateway=2`): replicas by service, overriding compose's `deploy.replicas`.
 * @throws Error on an item that is not `name=positive integer`
 */
export function parseScale(value: string | undefined): Record<string, number> {
  const scale: Record<string, number> = {};
  for (const item of (value ?? '').split(',').map((part) => part.trim())) {
    if (item === '') continue;
    const match = /^([a-z0-9-]+)=([1-9][0-9]?)$/.exec(item);
    if (!match) throw new Error(`BERTH_SCALE: "${item}" is not service=replicas (1 to 99)`);
    scale[match[1]] = Number(match[2]);
  }
  return scale;
}

/**
 * `BERTH_NATS_CLUSTER`: how many clustered nats-servers to start (3 or 5; JetStream needs an odd count for a
 * quorum that survives a node); unset or 1, a single server.
 * @throws Error on another value
 */
export function parseClusterSize(value: string | undefined): number {
  if (value === undefined || value === '' || value === '1') return 1;
  if (value === '3' || value === '5') return Number(value);
  throw new Error(`BERTH_NATS_CLUSTER must be 1, 3 or 5, got "${value}"`);
}

const PORT_DEFAULTS = { nats: 4250, mongo: 27250, postgres: 54250, standIn: 12111 };

/**
 * Says so when the data folder holds the store of Berth before the move to FerretDB 2 (FerretDB 1.24's SQLite files
 * in `<data>/ferretdb`): that data is not read. The new store starts empty in `<data>/store`; the old folder is left
 * as it is, for the user to delete (or to read with FerretDB 1.24) once done.
 */
function noteOldStore(dataDir: string, write: (line: string) => void): void {
  const old = join(dataDir, 'ferretdb');
  if (!existsSync(old) || !readdirSync(old, { recursive: true }).some((name) => String(name).endsWith('.sqlite')))
    return;
  write(
    `[infra] ${old} holds data of the old embedded store (FerretDB 1.24 on SQLite), which this version does not read: the store starts empty in ${join(dataDir, 'store')}. Delete ${old} once you no longer need it.`,
  );
}

/** Starts the mesh; resolves once the servers run and every service has been started (not yet ready). */
export async function startLocalMesh(options: LocalMeshOptions): Promise<LocalMeshHandle> {
  const { env } = options;
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const port = async (variable: string, fixed: number): Promise<number> =>
    env[variable] ? Number(env[variable]) : options.freePorts ? getFreePort() : fixed;
  const binDir = execFileSync('bash', [join(repositoryRoot, 'deploy/local/install-tools.sh')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .toString()
    .trim()
    .split('\n')
    .pop()!;
  const dataDir = options.dataDir ?? env.BERTH_DATA_DIR ?? join(repositoryRoot, '.data');
  mkdirSync(dataDir, { recursive: true });
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.splice(0).reverse())
      await stop().catch((error: unknown) => write(`[berth] could not stop cleanly: ${String(error)}`));
  };

  try {
    // Compose's required secrets (the dispatcher's token, the console's, the webhook secrets, the NATS passwords)
    // come from the shell when set there, else from <data>/local-secrets.json, generated once (mode 0600).
    const secrets = localSecrets(join(dataDir, 'local-secrets.json'));
    const natsPasswords = Object.fromEntries(
      NATS_USERS.map((user) => [user, env[passwordVariable(user)] || secrets[passwordVariable(user)]]),
    ) as Record<NatsUser, string>;
    let natsUrl = env.NATS_URL;
    /** The URL a NATS user connects with: its own credentials on the server started here, else NATS_URL as given. */
    let natsUrlOf = (_user: NatsUser | undefined): string => natsUrl!;
    let nats: NatsServerHandle | undefined;
    let natsCluster: NatsClusterHandle | undefined;
    const clusterSize = parseClusterSize(env.BERTH_NATS_CLUSTER);
    const scale = parseScale(env.BERTH_SCALE);
    if (!natsUrl && clusterSize > 1) {
      const basePort = await port('BERTH_NATS_PORT', PORT_DEFAULTS.nats);
      natsCluster = await startNatsCluster({
        binDir,
        size: clusterSize,
        dataDir: join(dataDir, 'nats-cluster'),
        ports: options.freePorts && !env.BERTH_NATS_PORT ? undefined : range(clusterSize).map((n) => basePort + n),
        logFileOf: (name) => join(dataDir, `nats-${name}.log`),
        ...authConfOptions(natsPasswords),
      });
      const urls = natsCluster.urls;
      natsUrl = urls.join(',');
      natsUrlOf = (user) => (user ? urls.map((url) => natsUrlAs(url, user, natsPasswords[user])).join(',') : natsUrl!);
      const cluster = natsCluster;
      stops.push(() => cluster.stop());
      write(
        `[infra] JetStream cluster "${cluster.name}" of ${clusterSize} nats-servers ${urls.join(', ')} (sync_interval always, GOMAXPROCS 1 each, the users of deploy/nats/auth.conf, data in ${join(dataDir, 'nats-cluster')}, meta leader ${(await cluster.metaLeader()).name}); streams and buckets get ${clusterSize} replicas`,
      );
    }
    if (!natsUrl) {
      nats = await startNatsServer({
        binDir,
        dataDir: join(dataDir, 'nats'),
        port: await port('BERTH_NATS_PORT', PORT_DEFAULTS.nats),
        monitoring: true,
        logFile: join(dataDir, 'nats.log'),
        ...authConfOptions(natsPasswords),
      });
      const bare = nats.url;
      natsUrl = bare;
      natsUrlOf = (user) => (user ? natsUrlAs(bare, user, natsPasswords[user]) : bare);
      const server = nats;
      stops.push(() => server.stop());
      write(
        `[infra] nats-server ${natsUrl} (JetStream, sync_interval always, GOMAXPROCS 1, the users of deploy/nats/auth.conf with the passwords of ${join(dataDir, 'local-secrets.json')}, data in ${join(dataDir, 'nats')}, monitoring ${nats.monitoringUrl})`,
      );
    }
    let mongoUrl = env.MONGO_URL;
    let mongo: FerretDbHandle | undefined;
    if (!mongoUrl) {
      noteOldStore(dataDir, write);
      mongo = await startFerretDb({
        binDir,
        dataDir: join(dataDir, 'store'),
        port: await port('BERTH_MONGO_PORT', PORT_DEFAULTS.mongo),
        postgresPort: options.freePorts ? undefined : await port('BERTH_POSTGRES_PORT', PORT_DEFAULTS.postgres),
        password: secrets.STORE_PASSWORD,
        logFile: join(dataDir, 'store.log'),
      });
      mongoUrl = mongo.url;
      const server = mongo;
      stops.push(() => server.stop());
      write(
        `[infra] embedded store mongodb://berth:…@127.0.0.1:${mongo.port}/ (FerretDB 2 over PostgreSQL with DocumentDB, data in ${join(dataDir, 'store')}; password STORE_PASSWORD in ${join(dataDir, 'local-secrets.json')})`,
      );
    }
    const mongoDb = mongoDatabaseName({ MONGO_URL: mongoUrl, MONGO_DB: env.MONGO_DB || undefined });

    const infra = new Supervisor({ ...options.supervisor, write });
    stops.push(() => infra.stop());
    let stripeApiBase = env.STRIPE_API_BASE;
    const standIn = join(repositoryRoot, 'test/support/stripe-stand-in/main.ts');
    if (!stripeApiBase && existsSync(standIn)) {
      const standInPort = String(await port('BERTH_STRIPE_STAND_IN_PORT', PORT_DEFAULTS.standIn));
      stripeApiBase = `http://127.0.0.1:${standInPort}`;
      infra.add({
        name: 'stripe-stand-in',
        command: ['node', '-r', './deploy/runtime/ts-hook.js', standIn],
        cwd: repositoryRoot,
        env: { ...env, PORT: standInPort },
      });
    }

    // Clerk, optional in compose, is on here with its local secret unless the shell says otherwise.
    const composed = readNativeServices(
      join(repositoryRoot, 'docker-compose.yml'),
      { CLERK_WEBHOOK_SIGNING_SECRET: secrets.CLERK_WEBHOOK_SIGNING_SECRET, ...env },
      secrets,
    );
    const hostNames = composed.map((service) => service.name);
    const dispatcherApiToken = composed.find((service) => service.name === 'dispatcher')?.environment
      .DISPATCHER_API_TOKEN;
    const services = new Supervisor({ ...options.supervisor, write });
    stops.push(() => services.stop());
    const health: HealthTarget[] = [];
    const gatewayUrls: string[] = [];
    let dispatcherUrl: string | undefined;
    let consoleUrl: string | undefined;
    for (const service of composed) {
      const entry = service.command.find((part) => part.endsWith('.ts'));
      if (entry && !existsSync(join(repositoryRoot, entry))) continue;
      const serviceEnv: NodeJS.ProcessEnv = {
        ...env,
        // Compose passes an empty string for an unset `${VAR:-}`; natively an unset variable stays unset.
        ...Object.fromEntries(
          Object.entries(service.environment)
            .filter(([, value]) => value !== '')
            .map(([key, value]) => [key, toLoopback(value, hostNames)]),
        ),
        // Compose's `nats://<user>:<password>@nats:4222`: the same user, on the server of this mesh.
        NATS_URL: natsUrlOf(natsUserOf(service.name)),
        MONGO_URL: mongoUrl,
        MONGO_DB: mongoDb,
        NODE_ENV: env.NODE_ENV ?? 'development',
        LOG_FORMAT: env.LOG_FORMAT ?? 'pretty',
        OTEL_EXPORTER_OTLP_ENDPOINT: env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '',
        HOST: service.environment.HOST ? '127.0.0.1' : undefined,
        HEALTH_HOST: service.environment.HEALTH_HOST ? '127.0.0.1' : undefined,
        ...(stripeApiBase ? { STRIPE_API_BASE: stripeApiBase } : {}),
        // On a cluster started here every stream and bucket a service creates gets one replica per node.
        ...(natsCluster && !env.STREAM_REPLICAS ? { STREAM_REPLICAS: String(clusterSize) } : {}),
      };
      if (service.name === 'console') {
        // The console reads the services' readiness and the dispatcher's catalog where this mesh put them.
        serviceEnv.CONSOLE_HEALTH_URLS = JSON.stringify(
          Object.fromEntries(health.map((target) => [target.name, `${target.url}/readyz`])),
        );
        if (dispatcherUrl) serviceEnv.DISPATCHER_URL = dispatcherUrl;
      }
      for (const key of Object.keys(serviceEnv)) if (serviceEnv[key] === undefined) delete serviceEnv[key];
      const replicas = scale[service.name] ?? service.replicas;
      for (let replica = 0; replica < replicas; replica++) {
        const name = replicas > 1 ? `${service.name}-${replica + 1}` : service.name;
        const replicaEnv = { ...serviceEnv };
        if (serviceEnv.PORT) {
          // Replicas share a machine here: each listens on the next port (3000, 3001, …) or a free one.
          const fixed = Number(service.name === 'gateway' && env.PORT ? env.PORT : serviceEnv.PORT) + replica;
          replicaEnv.PORT = String(
            options.freePorts && !(service.name === 'gateway' && env.PORT) ? await getFreePort() : fixed,
          );
          const url = `http://127.0.0.1:${replicaEnv.PORT}`;
          if (service.name === 'gateway') gatewayUrls.push(url);
          if (service.name === 'dispatcher' && replica === 0) dispatcherUrl = url;
          if (service.name === 'console' && replica === 0) consoleUrl = url;
          if (!serviceEnv.HEALTH_PORT) health.push({ name, url });
        }
        if (serviceEnv.HEALTH_PORT) {
          // Replicas share a machine here, so each gets its own health port (compose gives each its own container).
          replicaEnv.HEALTH_PORT = String(
            options.freePorts ? await getFreePort() : Number(serviceEnv.HEALTH_PORT) + 100 * replica,
          );
          health.push({ name, url: `http://127.0.0.1:${replicaEnv.HEALTH_PORT}` });
        }
        services.add({ name, command: service.command, env: replicaEnv, cwd: repositoryRoot });
      }
    }

    const gatewayUrl = gatewayUrls[0] ?? 'http://127.0.0.1:3000';
    for (const name of Object.keys(scale))
      if (!composed.some((service) => service.name === name))
        write(`[berth] BERTH_SCALE names ${name}, which docker-compose.yml does not run natively; ignored`);
    const mesh: LocalMesh = {
      // The operator's: the berth CLI and the `nats` CLI of the runbook read it (the file is mode 0600).
      natsUrl: natsUrlOf('operator'),
      mongoUrl,
      mongoDb,
      gatewayUrl,
      dispatcherUrl,
      dispatcherApiToken,
      health,
      ...(natsCluster
        ? {
            natsNodes: natsCluster.nodes.map((node) => ({
              name: node.name,
              url: node.server.url,
              monitoringUrl: node.server.monitoringUrl,
            })),
          }
        : {}),
      ...(gatewayUrls.length > 1 ? { gatewayUrls } : {}),
      pid: process.pid,
      startedAt: new Date().toISOString(),
    };
    const file = join(dataDir, 'berth-local.json');
    await writeLocalMesh(file, mesh);
    write(
      `[berth] gateway ${gatewayUrls.join(', ') || gatewayUrl}, dispatcher ${dispatcherUrl ?? '(not run)'}, console ${consoleUrl ?? '(not run)'} (its operator token: CONSOLE_OPERATOR_TOKEN in ${join(dataDir, 'local-secrets.json')}); the CLI reads ${file} (npx berth status)`,
    );
    return {
      mesh,
      file,
      nats,
      natsCluster,
      mongo,
      services,
      natsViolations: () =>
        (natsCluster ? natsCluster.nodes.map((node) => `nats-${node.name}.log`) : nats ? ['nats.log'] : [])
          .map((log) => join(dataDir, log))
          .filter((log) => existsSync(log))
          .flatMap((log) => permissionViolations(readFileSync(log, 'utf8'))),
      async stop() {
        rmSync(file, { force: true });
        await stopAll();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
