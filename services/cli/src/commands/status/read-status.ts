import { systemClock, type Clock } from '@berth/contract';
import type { Db } from 'mongodb';
import type { HealthTarget } from '@berth/config';
import { inboxCollections } from '@berth/inbox';
import { describeError, type Messaging } from '@berth/messaging';

/** One service's answer to `GET /readyz`. */
export interface ServiceHealth {
  name: string;
  url: string;
  /** `ready` (200), `not ready` (another status), `down` (no answer). */
  state: 'ready' | 'not ready' | 'down';
  detail: string;
}

/** One durable consumer: what it has not yet processed. */
export interface ConsumerLag {
  stream: string;
  consumer: string;
  /** Stored, not yet delivered. */
  pending: number;
  /** Delivered, not yet acked (being handled, or waiting for a retry). */
  ackPending: number;
  redelivered: number;
  /** Pull requests waiting: 0 means no process pulls from it now. */
  waitingPulls: number;
  /** pending + ack pending. */
  lag: number;
}

/** The webhook inbox: what is not processed. */
export interface InboxBacklog {
  unprocessed: number;
  setAside: number;
  /** Age in seconds of the oldest event neither processed nor set aside; null when there is none. */
  oldestUnprocessedAgeSeconds: number | null;
  oldestUnprocessed: { provider: string; eventId: string; receivedAt: string } | null;
}

/** One stream's raft group on a JetStream cluster: its leader and each follower's state. */
export interface StreamReplicas {
  stream: string;
  leader: string | null;
  followers: { node: string; current: boolean; offline: boolean; lagOps: number }[];
}

/** One node of a JetStream cluster: the streams and consumers it leads, the streams it follows and how far behind. */
export interface ClusterNode {
  node: string;
  leads: string[];
  /** Durable consumers whose raft group this node leads. */
  leadsConsumers: number;
  follows: { stream: string; current: boolean; offline: boolean; lagOps: number }[];
}

/** What a clustered JetStream reports; `clustered: false` on a single server. */
export type ClusterStatus =
  { clustered: false } | { clustered: true; name: string; nodes: ClusterNode[]; streams: StreamReplicas[] };

/** Everything `berth status` shows; a part that could not be read holds its error instead. */
export interface MeshStatus {
  source: string;
  services: ServiceHealth[];
  consumers: ConsumerLag[] | { error: string };
  inbox: InboxBacklog | { error: string };
  cluster: ClusterStatus | { error: string };
  /** True when every service is ready and every part could be read. */
  healthy: boolean;
}

/** Asks each service's `/readyz`, at once, each within `timeoutMs`. */
export async function readServiceHealth(targets: readonly HealthTarget[], timeoutMs = 2000): Promise<ServiceHealth[]> {
  return Promise.all(
    targets.map(async ({ name, url }): Promise<ServiceHealth> => {
      try {
        const response = await fetch(new URL('/readyz', url), { signal: AbortSignal.timeout(timeoutMs) });
        const body = (await response.text()).slice(0, 200);
        return { name, url, state: response.ok ? 'ready' : 'not ready', detail: `${response.status} ${body}`.trim() };
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        return { name, url, state: 'down', detail: cause ?? describeError(error) };
      }
    }),
  );
}

/** Every durable consumer of every stream, with its lag (ephemeral ones are left out). */
export async function readConsumerLag(messaging: Messaging): Promise<ConsumerLag[]> {
  const lags: ConsumerLag[] = [];
  for (const stream of (await messaging.jsm.streams.names().next()).sort()) {
    for (const info of await messaging.jsm.consumers.list(stream).next()) {
      // Ephemeral consumers (KV watchers, ordered readers) come and go with their clients; lag is a durable's.
      if (!info.config.durable_name) continue;
      lags.push({
        stream,
        consumer: info.name,
        pending: info.num_pending,
        ackPending: info.num_ack_pending,
        redelivered: info.num_redelivered,
        waitingPulls: info.num_waiting,
        lag: info.num_pending + info.num_ack_pending,
      });
    }
  }
  return lags.sort((a, b) => a.stream.localeCompare(b.stream) || a.consumer.localeCompare(b.consumer));
}

/**
 * Who leads what on a JetStream cluster, from the JetStream API alone (stream and consumer info carry their raft
 * group), so it reads the same on Kubernetes as beside `npm start`.
 */
export async function readClusterStatus(messaging: Messaging): Promise<ClusterStatus> {
  const streams: StreamReplicas[] = [];
  const consumerLeaders = new Map<string, number>();
  let clusterName: string | undefined;
  for (const stream of (await messaging.jsm.streams.names().next()).sort()) {
    const info = await messaging.jsm.streams.info(stream);
    if (!info.cluster) continue;
    clusterName = info.cluster.name ?? clusterName;
    streams.push({
      stream,
      leader: info.cluster.leader || null,
      followers: (info.cluster.replicas ?? []).map((replica) => ({
        node: replica.name,
        current: replica.current,
        offline: !!replica.offline,
        lagOps: replica.lag ?? 0,
      })),
    });
    for (const consumer of await messaging.jsm.consumers.list(stream).next()) {
      const leader = consumer.cluster?.leader;
      if (consumer.config.durable_name && leader) consumerLeaders.set(leader, (consumerLeaders.get(leader) ?? 0) + 1);
    }
  }
  // A single server has no raft groups: stream info carries no replicas there.
  if (!streams.some((stream) => stream.followers.length > 0)) return { clustered: false };
  const names = new Set<string>();
  for (const stream of streams) {
    if (stream.leader) names.add(stream.leader);
    for (const follower of stream.followers) names.add(follower.node);
  }
  const nodes = [...names].sort().map((node): ClusterNode => ({
    node,
    leads: streams.filter((stream) => stream.leader === node).map((stream) => stream.stream),
    leadsConsumers: consumerLeaders.get(node) ?? 0,
    follows: streams.flatMap((stream) =>
      stream.followers
        .filter((follower) => follower.node === node)
        .map((follower) => ({
          stream: stream.stream,
          current: follower.current,
          offline: follower.offline,
          lagOps: follower.lagOps,
        })),
    ),
  }));
  return { clustered: true, name: clusterName ?? '', nodes, streams };
}

/** The inbox's unprocessed events and the age of the oldest, at `now`. */
export async function readInboxStatus(db: Db, now: Date): Promise<InboxBacklog> {
  const { events } = inboxCollections(db);
  const [unprocessed, setAside, oldest] = await Promise.all([
    events.countDocuments({ processedAt: null, abandonedAt: null }),
    events.countDocuments({ abandonedAt: { $ne: null }, processedAt: null }),
    events
      .find(
        { processedAt: null, abandonedAt: null },
        { projection: { _id: 0, provider: 1, eventId: 1, receivedAt: 1 } },
      )
      .sort({ receivedAt: 1 })
      .limit(1)
      .next(),
  ]);
  return {
    unprocessed,
    setAside,
    oldestUnprocessedAgeSeconds: oldest
      ? Math.max(0, Math.round((now.getTime() - oldest.receivedAt.getTime()) / 1000))
      : null,
    oldestUnprocessed: oldest
      ? { provider: oldest.provider, eventId: oldest.eventId, receivedAt: oldest.receivedAt.toISOString() }
      : null,
  };
}

/** Reads the three parts side by side; one that fails is reported, not thrown. */
export async function readMeshStatus(options: {
  targets: readonly HealthTarget[];
  source: string;
  messaging: () => Promise<Messaging>;
  db: () => Promise<Db>;
  /** What the inbox's ages are measured against; defaults to the system clock. */
  clock?: Clock;
}): Promise<MeshStatus> {
  const orError = <T>(work: Promise<T>): Promise<T | { error: string }> =>
    work.catch((error: unknown) => ({ error: describeError(error) }));
  // One connection for both NATS parts (the CLI closes the one it opened).
  const messaging = options.messaging();
  const [services, consumers, inbox, cluster] = await Promise.all([
    readServiceHealth(options.targets),
    orError(messaging.then(readConsumerLag)),
    orError(options.db().then((db) => readInboxStatus(db, (options.clock ?? systemClock).now()))),
    orError(messaging.then(readClusterStatus)),
  ]);
  // A stream without a leader (an election, a lost quorum) or a follower offline is not healthy.
  const clusterHealthy =
    !('error' in cluster) &&
    (!cluster.clustered ||
      cluster.streams.every((stream) => stream.leader && stream.followers.every((follower) => !follower.offline)));
  const healthy =
    services.every((service) => service.state === 'ready') &&
    !('error' in consumers) &&
    !('error' in inbox) &&
    clusterHealthy;
  return { source: options.source, services, consumers, inbox, cluster, healthy };
}
