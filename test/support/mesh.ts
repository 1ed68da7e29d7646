/**
 * The Berth mesh for cross-service tests: a nats-server and a FerretDB of its own (free ports, temporary data), the
 * Stripe stand-in, and the gateway, billing-sync and identity-sync as real child processes
 * (`node -r ./deploy/runtime/ts-hook.js services/<name>/src/main.ts`), wired together by environment variables as in
 * production. One mesh per test file; {@link Mesh.stop} stops everything it started, also after a failed start.
 *
 * nats-server runs with Berth's NATS users (deploy/nats/auth.conf, as compose and Kubernetes run it, with fresh
 * random passwords) and each service connects as its own user; the test's own connection is the operator's.
 * {@link Mesh.stop} fails when nats-server logged a permission violation (`Publish Violation`, `Subscription
 * Violation`) while the mesh ran: a service lacking a permission here lacks it in production too.
 *
 * Every output line of every service process is kept (parsed when it is JSON) so that tests can count what the
 * services logged, across restarts; the lines also go to one log file per service under {@link Mesh.logDir}.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import {
  defaultToolsBinDir,
  startFerretDb,
  startNatsCluster,
  startNatsServer,
  type FerretDbHandle,
  type ManagedProcess,
  type NatsClusterHandle,
  type NatsServerHandle,
} from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { connectMessaging, WEBHOOK_HEADERS, type Messaging, type ReceivedMessage } from '@berth/messaging';
import { inboxCollections, isWebhookBatch, readWebhookBatch, type Inbox } from '@berth/inbox';
import { spawnService } from './service-process';
import { authConfOptions, natsUrlAs, permissionViolations, type NatsUser } from '../../deploy/local/nats-users';
import { randomNatsPasswords } from '../security/support/nats-users';
import { StripeStandIn } from './stripe-stand-in';
import { WebhookSender, newStripeSecret, newSvixSecret } from './webhook-senders';
import { waitFor } from '@berth/local-infra/testing';

/** The folder holding nats-server and ferretdb (deploy/local/install-tools.sh). */
export const toolsBinDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);

/** The services a mesh runs. */
export type MeshServiceName = 'gateway' | 'billing-sync' | 'identity-sync';

/** One output line of a service process: its JSON fields (or `{ raw }`), which run of the process wrote it. */
export type ServiceLogLine = Record<string, unknown> & { readonly run: number };

const READY_LINES: Record<MeshServiceName, RegExp> = {
  gateway: /Gateway listening on :(\d+)/,
  'billing-sync': /"msg":"Billing sync ready"/,
  'identity-sync': /"msg":"Identity sync ready"/,
};

/** A service run as a child process that can be killed, stopped and started again with the same environment. */
export class MeshService {
  /** Every line every run of this service wrote, in order. */
  readonly lines: ServiceLogLine[] = [];
  /** Runs started so far (1 after the first start). */
  runs = 0;
  private current?: ManagedProcess;

  constructor(
    readonly name: MeshServiceName,
    private env: Record<string, string>,
    readonly logFile: string,
    private readonly readyTimeoutMs: number,
  ) {}

  /** The running process (the last one started). */
  get process(): ManagedProcess {
    if (!this.current) throw new Error(`${this.name} was never started`);
    return this.current;
  }

  get running(): boolean {
    return this.current !== undefined && this.current.child.exitCode === null && this.current.child.signalCode === null;
  }

  /** Changes variables for the next start. */
  setEnv(changes: Record<string, string>): void {
    this.env = { ...this.env, ...changes };
  }

  /** Starts a new process and resolves with its ready line once it logs it. */
  async start(): Promise<RegExpMatchArray> {
    if (this.running) throw new Error(`${this.name} is already running`);
    this.runs += 1;
    const run = this.runs;
    const proc = spawnService({ service: this.name, env: { LOG_LEVEL: 'info', ...this.env }, logFile: this.logFile });
    this.current = proc;
    // Attached in the same tick as the spawn: no line of this run is missed, even those written before "ready".
    this.collectLines(proc, run);
    try {
      return await proc.waitForLine(READY_LINES[this.name], this.readyTimeoutMs);
    } catch (error) {
      await proc.stop(1000);
      throw error;
    }
  }

  /** SIGKILL, as a crash; resolves once the process has exited. */
  async kill(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const proc = this.process;
    if (this.running) proc.child.kill('SIGKILL');
    return proc.exited;
  }

  /** SIGTERM, SIGKILL after `graceMs`; resolves with how it exited. */
  async stop(graceMs = 10000): Promise<{ code: number | null; signal: NodeJS.Signals | null } | undefined> {
    if (!this.current) return undefined;
    await this.current.stop(graceMs);
    return this.current.exited;
  }

  /** Lines (of every run) whose `msg` is `msg` and whose fields include `fields`. */
  logged(msg: string | RegExp, fields: Record<string, unknown> = {}): ServiceLogLine[] {
    return this.lines.filter(
      (line) =>
        (typeof msg === 'string' ? line.msg === msg : typeof line.msg === 'string' && msg.test(line.msg)) &&
        Object.entries(fields).every(([key, value]) => line[key] === value),
    );
  }

  private collectLines(proc: ManagedProcess, run: number): void {
    for (const stream of [proc.child.stdout, proc.child.stderr]) {
      let partial = '';
      stream?.on('data', (chunk: Buffer) => {
        const parts = (partial + chunk.toString('utf8')).split('\n');
        partial = parts.pop() ?? '';
        for (const text of parts) {
          if (!text.trim()) continue;
          let fields: Record<string, unknown>;
          try {
            const parsed = JSON.parse(text) as unknown;
            fields =
              parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : { raw: text };
          } catch {
            fields = { raw: text };
          }
          this.lines.push({ ...fields, run });
        }
      });
    }
  }
}

/** What a mesh runs and how. */
export interface MeshOptions {
  /** Names the database (`<name>_<pid>_<random>`) and the temporary folders. */
  name: string;
  /**
   * Run a JetStream cluster of this many nodes (3) instead of one nats-server: every service gets every node's URL
   * and `STREAM_REPLICAS` of the cluster's size.
   */
  clusterSize?: number;
  /** More processes of a consumer service, beside the first (billing-sync: 2 runs three), on one durable. */
  extraReplicas?: Partial<Record<'billing-sync' | 'identity-sync', number>>;
  /** Services to run (all three by default). The gateway is needed by every sender. */
  services?: readonly MeshServiceName[];
  /** Extra variables per service, over the mesh's. */
  env?: Partial<Record<MeshServiceName, Record<string, string>>>;
  /** Per service start (default 90 s: three TypeScript services compiling at once on a loaded 2-core machine). */
  readyTimeoutMs?: number;
  /** Keep the log folder after stop (default: only when `BERTH_KEEP_MESH_LOGS` is set). */
  keepLogs?: boolean;
}

/** A running mesh. */
export interface Mesh {
  /** nats-server, with Berth's NATS users: its `url` has no credentials (see {@link Mesh.natsUrlAs}). */
  readonly nats: NatsServerHandle;
  /** The cluster when {@link MeshOptions.clusterSize} asked for one ({@link Mesh.nats} is then its first node). */
  readonly natsCluster?: NatsClusterHandle;
  /** The NATS URL with `user`'s credentials (each service's own user, the operator's for tools). */
  natsUrlAs(user: NatsUser): string;
  /** The permission violations nats-server logged so far (none allowed: {@link Mesh.stop} fails on any). */
  natsViolations(): Promise<string[]>;
  readonly ferret: FerretDbHandle;
  readonly standIn: StripeStandIn;
  /** The test's own connections, for assertions. */
  readonly mongo: MongoClient;
  readonly db: Db;
  readonly inbox: Inbox;
  readonly messaging: Messaging;
  readonly services: Partial<Record<MeshServiceName, MeshService>>;
  /** Every process of a service: the first ({@link Mesh.service}) and its extra replicas. */
  replicasOf(name: MeshServiceName): MeshService[];
  /** The service, or an error if this mesh does not run it. */
  service(name: MeshServiceName): MeshService;
  readonly gatewayUrl: string;
  readonly secrets: { stripe: string; clerk: string };
  /** Signs and posts webhooks to the gateway. */
  readonly sender: WebhookSender;
  readonly logDir: string;
  /** Messages stored in `WEBHOOKS` (optionally only on subjects matching `subjectFilter`). */
  streamMessageCount(subjectFilter?: string): Promise<number>;
  /**
   * The event ids stored in `WEBHOOKS` on subjects matching `subjectFilter`, in stream order: one per single-event
   * message, every item of a batch message (the gateway's group commit).
   */
  storedEventIds(subjectFilter: string): Promise<string[]>;
  /** The same, message by message: the event ids each stored message carries (one, or a batch's items). */
  storedMessageEventIds(subjectFilter: string): Promise<string[][]>;
  /** Resolves once the service's durable consumer has nothing undelivered and nothing unacknowledged. */
  waitForConsumerSettled(durable: 'billing-sync' | 'identity-sync', timeoutMs: number): Promise<void>;
  /**
   * Stops every process and server, removes temporary data; safe to call after a partial start and twice. Rejects
   * (after stopping everything) when nats-server logged a permission violation.
   */
  stop(): Promise<void>;
}

const ALL_SERVICES: readonly MeshServiceName[] = ['gateway', 'billing-sync', 'identity-sync'];

/** Starts a mesh; on failure stops what was started and rethrows. */
export async function startMesh(options: MeshOptions): Promise<Mesh> {
  const wanted = options.services ?? ALL_SERVICES;
  const cleanups: (() => Promise<unknown>)[] = [];
  const runCleanups = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };
  const keepLogs = options.keepLogs ?? Boolean(process.env.BERTH_KEEP_MESH_LOGS);
  try {
    const logDir = await mkdtemp(join(tmpdir(), `berth-mesh-${options.name}-logs-`));
    cleanups.push(() => (keepLogs ? Promise.resolve() : rm(logDir, { recursive: true, force: true })));
    // FerretDB's data folder is the mesh's, not the handle's, so that stopping FerretDB in a test keeps the data.
    const ferretDataDir = await mkdtemp(join(tmpdir(), `berth-mesh-${options.name}-ferretdb-`));
    cleanups.push(() => rm(ferretDataDir, { recursive: true, force: true }));

    const standIn = new StripeStandIn();
    const passwords = randomNatsPasswords('hex');
    const natsLog = join(logDir, 'nats-server.log');
    let natsCluster: NatsClusterHandle | undefined;
    const [nats, ferret] = await Promise.all([
      options.clusterSize
        ? startNatsCluster({
            binDir: toolsBinDir,
            size: options.clusterSize,
            logFileOf: () => natsLog,
            ...authConfOptions(passwords),
          }).then((cluster) => {
            natsCluster = cluster;
            cleanups.push(() => cluster.stop());
            return cluster.nodes[0].server;
          })
        : startNatsServer({ binDir: toolsBinDir, logFile: natsLog, ...authConfOptions(passwords) }).then((handle) => {
            cleanups.push(() => handle.stop());
            return handle;
          }),
      startFerretDb({ binDir: toolsBinDir, dataDir: ferretDataDir, logFile: join(logDir, 'ferretdb.log') }).then(
        (handle) => {
          cleanups.push(() => handle.stop());
          return handle;
        },
      ),
      standIn.start().then(() => cleanups.push(() => standIn.stop())),
    ]);

    const dbName = `${options.name.replace(/[^A-Za-z0-9_]/g, '_')}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const secrets = { stripe: newStripeSecret(), clerk: newSvixSecret() };
    const natsUrls = natsCluster?.urls ?? [nats.url];
    const as = (user: NatsUser): string => natsUrls.map((url) => natsUrlAs(url, user, passwords[user])).join(',');
    const replicas: Record<string, string> = options.clusterSize
      ? { STREAM_REPLICAS: String(options.clusterSize) }
      : {};
    const common = { MONGO_URL: ferret.url, MONGO_DB: dbName, ...replicas };
    const envs: Record<MeshServiceName, Record<string, string>> = {
      gateway: {
        NATS_URL: as('gateway'),
        ...replicas,
        HOST: '127.0.0.1',
        PORT: '0',
        STRIPE_WEBHOOK_SECRET: secrets.stripe,
        CLERK_WEBHOOK_SIGNING_SECRET: secrets.clerk,
        // Tests send hundreds of signed requests from one IP; the limiter has its own tests.
        WEBHOOK_RATE_LIMIT_PER_MINUTE: '0',
        // The mesh starts the gateway first (it sizes WEBHOOKS) and its consumers after it, and some meshes run one
        // consumer only: the start-up check for consumers has its own tests (services/gateway/src/consumer-check.test.ts).
        WEBHOOK_STORE_ONLY_PROVIDERS: 'stripe,clerk',
        ...options.env?.gateway,
      },
      'billing-sync': {
        ...common,
        NATS_URL: as('billing-sync'),
        STRIPE_SECRET_KEY: 'sk_test_berth_mesh',
        STRIPE_API_BASE: standIn.url,
        ...options.env?.['billing-sync'],
      },
      'identity-sync': { ...common, NATS_URL: as('identity-sync'), ...options.env?.['identity-sync'] },
    };

    const services: Partial<Record<MeshServiceName, MeshService>> = {};
    for (const name of wanted) {
      const service = new MeshService(name, envs[name], join(logDir, `${name}.log`), options.readyTimeoutMs ?? 90000);
      services[name] = service;
    }
    cleanups.push(() => Promise.all(Object.values(services).map((service) => service.stop(10000))));
    // The gateway first: it provisions WEBHOOKS with its sizing (the consumers create it only if it is missing).
    let gatewayUrl = '';
    if (services.gateway) {
      const port = (await services.gateway.start())[1];
      gatewayUrl = `http://127.0.0.1:${port}`;
      services.gateway.setEnv({ PORT: port });
    }
    await Promise.all(wanted.filter((name) => name !== 'gateway').map((name) => services[name]!.start()));
    const extra: Partial<Record<MeshServiceName, MeshService[]>> = {};
    for (const [name, count] of Object.entries(options.extraReplicas ?? {}) as [MeshServiceName, number][]) {
      extra[name] = Array.from(
        { length: count },
        (_, n) =>
          new MeshService(name, envs[name], join(logDir, `${name}-${n + 2}.log`), options.readyTimeoutMs ?? 90000),
      );
      cleanups.push(() => Promise.all(extra[name]!.map((service) => service.stop(10000))));
      await Promise.all(extra[name].map((service) => service.start()));
    }

    const mongo = await MongoClient.connect(ferret.url);
    cleanups.push(() => mongo.close(true));
    const db = mongo.db(dbName);
    const messaging = await connectMessaging({
      servers: as('operator'),
      name: `mesh-test-${options.name}`,
      logger: createLogger({ service: 'mesh-test', level: 'silent' }),
    });
    cleanups.push(() => messaging.close());

    const natsViolations = async (): Promise<string[]> =>
      permissionViolations(await readFile(natsLog, 'utf8').catch(() => ''));
    const mesh: Mesh = {
      nats,
      natsCluster,
      natsUrlAs: as,
      natsViolations,
      ferret,
      standIn,
      mongo,
      db,
      inbox: inboxCollections(db),
      messaging,
      services,
      replicasOf(name) {
        return [...(services[name] ? [services[name]] : []), ...(extra[name] ?? [])];
      },
      service(name) {
        const service = services[name];
        if (!service) throw new Error(`This mesh does not run ${name}`);
        return service;
      },
      gatewayUrl,
      secrets,
      sender: new WebhookSender(gatewayUrl, secrets),
      logDir,
      async streamMessageCount(subjectFilter) {
        if (!subjectFilter) return (await messaging.jsm.streams.info('WEBHOOKS')).state.messages;
        const info = await messaging.jsm.streams.info('WEBHOOKS', { subjects_filter: subjectFilter });
        return Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
      },
      async storedEventIds(subjectFilter) {
        return (await this.storedMessageEventIds(subjectFilter)).flat();
      },
      async storedMessageEventIds(subjectFilter) {
        const total = await this.streamMessageCount(subjectFilter);
        const consumer = await messaging.js.consumers.get('WEBHOOKS', { filter_subjects: [subjectFilter] });
        const ids: string[][] = [];
        for (let read = 0; read < total;) {
          let received = 0;
          for await (const msg of await consumer.fetch({ max_messages: Math.min(500, total - read), expires: 5000 })) {
            received += 1;
            const message = { headers: msg.headers, subject: msg.subject, data: msg.data } as ReceivedMessage;
            ids.push(
              isWebhookBatch(message)
                ? readWebhookBatch({ ...message, storedAt: new Date() }).map((event) => event.eventId)
                : [msg.headers?.get(WEBHOOK_HEADERS.eventId) ?? ''],
            );
          }
          if (received === 0)
            throw new Error(`WEBHOOKS holds ${total} messages on ${subjectFilter}, only ${read} could be read`);
          read += received;
        }
        return ids;
      },
      async waitForConsumerSettled(durable, timeoutMs) {
        await waitFor(() => messaging.jsm.consumers.info('WEBHOOKS', durable), {
          what: `consumer ${durable} to have nothing pending`,
          timeoutMs,
          intervalMs: 200,
          until: (info) => info.num_pending === 0 && info.num_ack_pending === 0,
        });
      },
      async stop() {
        // Read before the cleanups remove the log folder; a violation fails the test file, once everything stopped.
        const violations = await natsViolations();
        await runCleanups();
        if (violations.length > 0)
          throw new Error(`nats-server logged ${violations.length} permission violation(s):\n${violations.join('\n')}`);
      },
    };
    return mesh;
  } catch (error) {
    await runCleanups();
    throw error;
  }
}
