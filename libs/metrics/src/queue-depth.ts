import { Gauge, type Registry } from 'prom-client';
import { cachedRead } from './cached-read';
import type { MetricsErrorLogger } from './registry-helpers';

/** The `state` label values of `queue_depth`. */
export const QUEUE_DEPTH_STATES = ['pending', 'ack_pending', 'redelivered'] as const;

/** One queue's depth, as a JetStream consumer reports it. Counts are messages. */
export interface QueueDepthReading {
  queue: string;
  /** Not yet delivered to any worker (the consumer's `num_pending`). */
  pending: number;
  /** Delivered and not yet acked: running, or waiting for a retry after a nak with delay (`num_ack_pending`). */
  ackPending: number;
  /** Delivered more than once and still not acked: retries, or a worker that died (`num_redelivered`). */
  redelivered: number;
}

/** Options for {@link createQueueDepthMetric}. */
export interface QueueDepthMetricOptions {
  /** Reads every queue's depth; called at scrape time, at most once per `cacheMs`. */
  read: () => Promise<readonly QueueDepthReading[]>;
  /** How long a reading serves scrapes (default 5000 ms): several Prometheus replicas must not each hit JetStream. */
  cacheMs?: number;
  /** Told when a read fails; the scrape then has no `queue_depth` series (no stale numbers). */
  logger?: MetricsErrorLogger;
}

/**
 * Registers `queue_depth{queue,state}` (states: {@link QUEUE_DEPTH_STATES}), computed when `/metrics` is scraped
 * from `read` (JetStream consumer info, e.g. {@link jetStreamConsumerDepths} or the jobs library's queue depths).
 * Every replica of a service reports the same numbers: aggregate with `max by (queue, state)`, never `sum`.
 */
export function createQueueDepthMetric(registry: Registry, options: QueueDepthMetricOptions): Gauge<'queue' | 'state'> {
  const read = cachedRead(options.read, options.cacheMs ?? 5000);
  return new Gauge({
    name: 'queue_depth',
    help: 'Messages of a queue by state, from its JetStream consumer: pending (not delivered yet), ack_pending (delivered, not acked), redelivered (delivered more than once, not acked)',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      let readings: readonly QueueDepthReading[];
      try {
        readings = await read();
      } catch (error) {
        options.logger?.warn({ err: error }, 'Could not read queue depths for /metrics');
        return;
      }
      for (const reading of readings) {
        this.labels(reading.queue, 'pending').set(reading.pending);
        this.labels(reading.queue, 'ack_pending').set(reading.ackPending);
        this.labels(reading.queue, 'redelivered').set(reading.redelivered);
      }
    },
  });
}

/** The part of a JetStream manager read here (`@nats-io/jetstream`'s `JetStreamManager` fits). */
export interface ConsumerInfoSource {
  consumers: {
    info(
      stream: string,
      consumer: string,
    ): Promise<{ num_pending: number; num_ack_pending: number; num_redelivered: number }>;
  };
}

/** A durable consumer standing for a queue. */
export interface ConsumerOfQueue {
  /** The `queue` label, e.g. `billing-sync`. */
  queue: string;
  stream: string;
  consumer: string;
}

/** A {@link QueueDepthMetricOptions.read} from the info of durable consumers (one JetStream API call each). */
export function jetStreamConsumerDepths(
  jsm: ConsumerInfoSource,
  consumers: readonly ConsumerOfQueue[],
): () => Promise<QueueDepthReading[]> {
  return () =>
    Promise.all(
      consumers.map(async ({ queue, stream, consumer }) => {
        const info = await jsm.consumers.info(stream, consumer);
        return {
          queue,
          pending: info.num_pending,
          ackPending: info.num_ack_pending,
          redelivered: info.num_redelivered,
        };
      }),
    );
}
