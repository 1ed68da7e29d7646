import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getFreePort } from './free-port';
import { startNatsServer, type NatsServerHandle, type NatsServerOptions } from './nats-server';

/** Options for {@link startNatsCluster}: those of {@link startNatsServer} every node shares, and the cluster's. */
export interface NatsClusterOptions extends Pick<
  NatsServerOptions,
  'binDir' | 'host' | 'maxProcs' | 'extraConfig' | 'configVariables' | 'maxFileStore'
> {
  /** Nodes, default 3 (JetStream's replicas of a stream are at most the number of nodes). */
  size?: number;
  /** Cluster name (`berth`). */
  name?: string;
  /** Parent of each node's data folder (`<dataDir>/<node>`); a temporary folder (removed on stop) when unset. */
  dataDir?: string;
  /** Client ports of the nodes, in order; free ones when unset. Route ports are always free ones. */
  ports?: number[];
  /** Log file of node `name` (`berth-1`, …); none when unset. */
  logFileOf?: (name: string) => string;
  /** Echo each node's output with this prefix and the node's name. */
  echoPrefix?: string;
  /** How long to wait for JetStream's meta leader once every node runs (default 30 s). */
  readyTimeoutMs?: number;
}

/** One node of a {@link NatsClusterHandle}: its server, and faults to inflict on it. */
export interface NatsClusterNode {
  /** Server name (`berth-1`, …), as JetStream names leaders and peers. */
  readonly name: string;
  readonly server: NatsServerHandle;
  /** The process id of the running server (a new one after each restart). */
  readonly pid: number | undefined;
  /** True while the process runs (SIGSTOPped counts as running). */
  readonly running: boolean;
  /** SIGKILL, as a crash; data kept. Resolves once the process has exited. */
  kill(): Promise<void>;
  /** SIGSTOP: the process is frozen (no reads, no writes, no heartbeats) until {@link resume}. */
  pause(): void;
  /** SIGCONT after {@link pause}. */
  resume(): void;
  /** Starts the node again on its ports and data (after kill or stop); a paused node is killed first. */
  restart(): Promise<void>;
  /** A graceful stop (SIGTERM, as a rolling restart does), data kept. */
  stop(): Promise<void>;
}

/** JetStream's view of the cluster, as a node's `/jsz` monitor reports it. */
export interface JetStreamClusterState {
  /** Server name of the meta leader; undefined while there is none (an election, a lost quorum). */
  metaLeader?: string;
  /** Peers the meta group knows, with whether the leader sees them current. */
  peers: { name: string; current: boolean; offline: boolean; lagOps?: number }[];
}

/** The raft group of one stream (or of one of its consumers), from a node's `/jsz`. */
export interface StreamClusterState {
  stream: string;
  leader?: string;
  replicas: { name: string; current: boolean; offline: boolean; lagOps?: number }[];
  /** By durable name. */
  consumers: Record<string, { leader?: string }>;
}

/** Three (or `size`) nats-servers with JetStream, clustered over routes on loopback. */
export interface NatsClusterHandle {
  readonly name: string;
  readonly nodes: readonly NatsClusterNode[];
  /** Every running node's client URL, comma-separated, as `NATS_URL` takes several servers. */
  readonly url: string;
  /** Every node's client URL, whether it runs or not. */
  readonly urls: string[];
  /** The node named `name` (`berth-2`). */
  node(name: string): NatsClusterNode;
  /** JetStream's meta group, read from the first running, answering node. */
  state(): Promise<JetStreamClusterState>;
  /** The raft group of `stream` and its consumers; undefined when no running node knows it. */
  streamState(stream: string): Promise<StreamClusterState | undefined>;
  /** The node leading `stream` now; rejects after `timeoutMs` (10 s) without one. */
  streamLeader(stream: string, timeoutMs?: number): Promise<NatsClusterNode>;
  /** The meta leader now; rejects after `timeoutMs` (30 s) without one. */
  metaLeader(timeoutMs?: number): Promise<NatsClusterNode>;
  /** Resolves once a meta leader is elected and every running node sees it. */
  waitForMetaLeader(timeoutMs?: number): Promise<NatsClusterNode>;
  /** Stops every node (paused ones included) and removes a temporary data folder. */
  stop(): Promise<void>;
}

interface JszPeer {
  name: string;
  current?: boolean;
  offline?: boolean;
  lag?: number;
}
interface Jsz {
  meta_cluster?: { leader?: string; replicas?: JszPeer[] };
  account_details?: {
    stream_detail?: {
      name: string;
      cluster?: { leader?: string; replicas?: JszPeer[] };
      consumer_detail?: { name: string; cluster?: { leader?: string } }[];
    }[];
  }[];
}

const peer = (replica: JszPeer): { name: string; current: boolean; offline: boolean; lagOps?: number } => ({
  name: replica.name,
  current: !!replica.current,
  offline: !!replica.offline,
  ...(replica.lag === undefined ? {} : { lagOps: replica.lag }),
});

/**
 * Starts `size` (3) nats-servers on loopback, each with its own data folder, `sync_interval: always` and the
 * configuration every node shares (e.g. Berth's NATS users), routed to each other as one JetStream cluster, and
 * resolves once a meta leader is elected (streams and buckets can be created then).
 */
export async function startNatsCluster(options: NatsClusterOptions): Promise<NatsClusterHandle> {
  const size = options.size ?? 3;
  if (!Number.isInteger(size) || size < 1) throw new TypeError(`size must be a positive integer, got ${size}`);
  if (options.ports && options.ports.length !== size) throw new TypeError(`ports must name ${size} ports`);
  const host = options.host ?? '127.0.0.1';
  const clusterName = options.name ?? 'berth';
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'berth-nats-cluster-')));
  await mkdir(dataDir, { recursive: true });
  const names = Array.from({ length: size }, (_, index) => `${clusterName}-${index + 1}`);
  const routePorts = await Promise.all(names.map(() => getFreePort(host)));
  const routes = routePorts.map((port) => `nats-route://${host}:${port}`);

  const started = await Promise.allSettled(
    names.map((name, index) =>
      startNatsServer({
        binDir: options.binDir,
        host,
        maxProcs: options.maxProcs,
        extraConfig: options.extraConfig,
        configVariables: options.configVariables,
        maxFileStore: options.maxFileStore,
        dataDir: join(dataDir, name),
        port: options.ports?.[index],
        monitoring: true,
        serverName: name,
        logFile: options.logFileOf?.(name),
        echoPrefix: options.echoPrefix ? `${options.echoPrefix}[${name}]` : undefined,
        cluster: { name: clusterName, port: routePorts[index], routes },
      }),
    ),
  );
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(
      started.map((result) => (result.status === 'fulfilled' ? result.value.stop() : Promise.resolve())),
    );
    if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    throw (failed as PromiseRejectedResult).reason;
  }
  const servers = started.map((result) => (result as PromiseFulfilledResult<NatsServerHandle>).value);

  const nodes: NatsClusterNode[] = servers.map((server, index) => {
    let paused = false;
    const running = (): boolean => server.process.child.exitCode === null && server.process.child.signalCode === null;
    return {
      name: names[index],
      server,
      get pid() {
        return server.process.child.pid;
      },
      get running() {
        return running();
      },
      async kill() {
        paused = false;
        await server.kill();
      },
      pause() {
        if (!running()) throw new Error(`${names[index]} is not running`);
        server.process.child.kill('SIGSTOP');
        paused = true;
      },
      resume() {
        if (paused && running()) server.process.child.kill('SIGCONT');
        paused = false;
      },
      async restart() {
        if (paused) await this.kill();
        await server.restart();
      },
      async stop() {
        if (paused) this.resume();
        await server.process.stop();
      },
    };
  });
  const byName = new Map(nodes.map((node) => [node.name, node]));
  const node = (name: string): NatsClusterNode => {
    const found = byName.get(name);
    if (!found) throw new Error(`no node ${name} in cluster ${clusterName}`);
    return found;
  };

  /** `/jsz` of every running node that answers within a second (a paused node never does). */
  const jszAll = async (query: string): Promise<{ node: NatsClusterNode; jsz: Jsz }[]> => {
    const answers = await Promise.all(
      nodes
        .filter((candidate) => candidate.running)
        .map(async (candidate) => {
          try {
            const response = await fetch(`${candidate.server.monitoringUrl}/jsz${query}`, {
              signal: AbortSignal.timeout(1000),
            });
            return response.ok ? { node: candidate, jsz: (await response.json()) as Jsz } : undefined;
          } catch {
            return undefined;
          }
        }),
    );
    return answers.filter((answer): answer is { node: NatsClusterNode; jsz: Jsz } => answer !== undefined);
  };

  const state = async (): Promise<JetStreamClusterState> => {
    const answers = await jszAll('');
    // Only the leader's own answer counts: a follower keeps naming a leader that is frozen or gone until its
    // election timeout, and a frozen node does not answer at all.
    const fromLeader = answers.find(({ node: answering, jsz }) => jsz.meta_cluster?.leader === answering.name);
    const meta = fromLeader?.jsz.meta_cluster;
    return { metaLeader: meta?.leader || undefined, peers: (meta?.replicas ?? []).map(peer) };
  };

  const streamState = async (stream: string): Promise<StreamClusterState | undefined> => {
    const answers = await jszAll('?accounts=true&streams=true&consumers=true');
    let found: StreamClusterState | undefined;
    for (const { jsz } of answers) {
      for (const account of jsz.account_details ?? []) {
        for (const detail of account.stream_detail ?? []) {
          if (detail.name !== stream) continue;
          const candidate: StreamClusterState = {
            stream,
            leader: detail.cluster?.leader || undefined,
            replicas: (detail.cluster?.replicas ?? []).map(peer),
            consumers: Object.fromEntries(
              (detail.consumer_detail ?? []).map((consumer) => [
                consumer.name,
                { leader: consumer.cluster?.leader || undefined },
              ]),
            ),
          };
          if (!found || (!found.leader && candidate.leader)) found = candidate;
        }
      }
    }
    return found;
  };

  const poll = async <T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`cluster ${clusterName}: no ${what} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  const metaLeader = (timeoutMs = 30000): Promise<NatsClusterNode> =>
    poll(
      async () => {
        const { metaLeader: leader } = await state();
        return leader && byName.get(leader)?.running ? byName.get(leader) : undefined;
      },
      timeoutMs,
      'meta leader',
    );

  const handle: NatsClusterHandle = {
    name: clusterName,
    nodes,
    get url() {
      return nodes
        .filter((candidate) => candidate.running)
        .map((candidate) => candidate.server.url)
        .join(',');
    },
    get urls() {
      return nodes.map((candidate) => candidate.server.url);
    },
    node,
    state,
    streamState,
    streamLeader: (stream, timeoutMs = 10000) =>
      poll(
        async () => {
          const leader = (await streamState(stream))?.leader;
          return leader && byName.get(leader)?.running ? byName.get(leader) : undefined;
        },
        timeoutMs,
        `leader of stream ${stream}`,
      ),
    metaLeader,
    waitForMetaLeader: (timeoutMs = options.readyTimeoutMs ?? 30000) =>
      poll(
        async () => {
          const answers = await jszAll('');
          const running = nodes.filter((candidate) => candidate.running).length;
          const leaders = new Set(answers.map(({ jsz }) => jsz.meta_cluster?.leader || ''));
          const [leader] = [...leaders];
          return answers.length === running && leaders.size === 1 && leader && byName.get(leader)?.running
            ? byName.get(leader)
            : undefined;
        },
        timeoutMs,
        'meta leader seen by every running node',
      ),
    async stop() {
      await Promise.all(nodes.map((candidate) => candidate.stop()));
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };

  try {
    await handle.waitForMetaLeader();
  } catch (error) {
    await handle.stop();
    throw error;
  }
  return handle;
}
