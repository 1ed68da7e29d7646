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

/** Everything `berth status` shows; a part that could not be read holds its error instead. */
export interface MeshStatus {
  source: string;
  services: ServiceHealth[];
  consumers: ConsumerLag[] | { error: string };
  inbox: InboxBacklog | { error: string };
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
  now?: () => Date;
}): Promise<MeshStatus> {
  const orError = <T>(work: Promise<T>): Promise<T | { error: string }> =>
    work.catch((error: unknown) => ({ error: describeError(error) }));
  const [services, consumers, inbox] = await Promise.all([
    readServiceHealth(options.targets),
    orError(options.messaging().then(readConsumerLag)),
    orError(options.db().then((db) => readInboxStatus(db, (options.now ?? (() => new Date()))()))),
  ]);
  const healthy =
    services.every((service) => service.state === 'ready') && !('error' in consumers) && !('error' in inbox);
  return { source: options.source, services, consumers, inbox, healthy };
}
