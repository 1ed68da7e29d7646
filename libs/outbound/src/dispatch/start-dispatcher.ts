import type { Db } from 'mongodb';
import type { Subscription } from '@nats-io/nats-core';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import type { Messaging, StreamSizing } from '@berth/messaging';
import { cachedRead, type Registry } from '@berth/metrics';
import { SVIX_RETRY_SCHEDULE_MS, type AddressPolicy, type ResolveHost } from '../delivery';
import { systemClock, type Clock } from '@berth/contract';
import { ensureOutboundIndexes, outboundCollections, type OutboundCollections } from '../collections';
import { announceEndpointChange } from '../endpoints/announce-endpoint-change';
import { endpointConsumerName, ENDPOINT_CHANGED_SUBJECT, OUTBOUND_DELIVERIES_STREAM } from '../names';
import { ensureOutboundStreams } from '../streams';
import { createDispatcherMetrics, type DispatcherMetrics } from './dispatcher-metrics';
import { EndpointLanes } from './endpoint-lanes';
import { EndpointRegistry } from './endpoint-registry';
import { openEndpointRateWindows } from './shared-rate-limiter';
import { createLogWriters } from './log-writers';
import { startFanOut } from './start-fan-out';
import { startRetentionLoop } from './start-retention-loop';

/** Five days: how long an endpoint may fail every attempt before it is disabled (Svix's rule). */
export const DEFAULT_DISABLE_AFTER_FAILING_MS = 5 * 24 * 60 * 60 * 1000;

/** Options for {@link startDispatcher}; every dependency is passed in. */
export interface DispatcherOptions {
  messaging: Messaging;
  db: Db;
  logger: BerthLogger;
  logContext?: LogContextStore;
  /** Which addresses deliveries may connect to: strict by default (see `createAddressPolicy`). */
  policy: AddressPolicy;
  resolve?: ResolveHost;
  registry: Registry;
  clock?: Clock;
  /** Delays before each attempt of a round; default the Svix schedule. Tests pass a compressed one. */
  retrySchedule?: readonly number[];
  /** Default 0.2. */
  retryJitter?: number;
  /** Per attempt; default 15 000. */
  timeoutMs?: number;
  /** Response bytes kept in the log; default 4096. */
  maxResponseBytes?: number;
  /** Deliveries in flight per unordered endpoint in this replica; default 16. */
  endpointConcurrency?: number;
  /** Events fanned out at once (events of a workspace with an ordered endpoint go one at a time); default 32. */
  fanOutConcurrency?: number;
  /** Ack wait of the consumers; default 30 000 (more than one attempt's timeout). */
  ackWaitMs?: number;
  /** How often endpoints are reloaded besides the change announcements; default 5000. */
  endpointReloadMs?: number;
  disableAfterFailingMs?: number;
  /** Delivery log retention; unset: kept forever. */
  retention?: { maxAgeMs: number; intervalMs: number };
  /** Create or update the outbound streams (default true). */
  provisionStreams?: boolean;
  sizing?: StreamSizing;
}

/** A running dispatcher. */
export interface Dispatcher {
  readonly collections: OutboundCollections;
  readonly endpoints: EndpointRegistry;
  readonly metrics: DispatcherMetrics;
  /** Reloads the endpoints and their lanes now (the HTTP API calls it after a change it made). */
  reloadEndpoints(): Promise<void>;
  /** True while the fan-out consumer and every endpoint's lane pull: a dispatcher whose consumer died is not ready. */
  healthy(): boolean;
  /** Stops consuming, lets running attempts finish within `graceMs`. Does not close the connections. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Runs the outbound side: consumes `OUTBOUND_EVENTS` and fans each event out (see `fanOutEvent`), and runs one
 * delivery lane per endpoint (see `EndpointLanes`, `attemptDelivery`). Endpoints are reloaded on a timer and on
 * every announcement on `outbound.control.endpoint-changed`; a retention loop trims the delivery log.
 */
export async function startDispatcher(options: DispatcherOptions): Promise<Dispatcher> {
  const { messaging, logger } = options;
  const clock = options.clock ?? systemClock;
  const collections = outboundCollections(options.db);
  const ackWaitMs = options.ackWaitMs ?? 30_000;
  if (options.provisionStreams !== false) await ensureOutboundStreams(messaging, options.sizing);
  await ensureOutboundIndexes(collections);
  const writers = createLogWriters(collections);

  let lanes: EndpointLanes | undefined;
  const readBacklog = cachedRead(async () => {
    const readings: [string, number][] = [];
    for (const endpointId of lanes?.endpointIds ?? []) {
      const info = await messaging.jsm.consumers
        .info(OUTBOUND_DELIVERIES_STREAM, endpointConsumerName(endpointId))
        .catch(() => undefined);
      if (info) readings.push([endpointId, info.num_pending + info.num_ack_pending]);
    }
    return readings;
  }, 5000);
  const metrics = createDispatcherMetrics(options.registry, readBacklog);
  const endpoints = new EndpointRegistry({ collections, logger, onReload: (all) => lanes?.reconcile(all) });
  lanes = new EndpointLanes({
    messaging,
    logger,
    logContext: options.logContext,
    concurrency: options.endpointConcurrency ?? 16,
    ackWaitMs,
    takeRateStart: await openEndpointRateWindows(messaging.js, { replicas: options.sizing?.replicas }),
    attempt: {
      js: messaging.js,
      collections,
      writers,
      endpoints,
      metrics,
      logger,
      clock,
      policy: options.policy,
      resolve: options.resolve,
      timeoutMs: options.timeoutMs ?? 15_000,
      maxResponseBytes: options.maxResponseBytes ?? 4096,
      retrySchedule: options.retrySchedule ?? SVIX_RETRY_SCHEDULE_MS,
      retryJitter: options.retryJitter ?? 0.2,
      disableAfterFailingMs: options.disableAfterFailingMs ?? DEFAULT_DISABLE_AFTER_FAILING_MS,
      onDisabled: (endpointId) => announceEndpointChange(messaging.nc, endpointId),
    },
  });
  await endpoints.reload();

  const subscription: Subscription = messaging.nc.subscribe(ENDPOINT_CHANGED_SUBJECT, {
    callback: () =>
      void endpoints.reload().catch((error: unknown) => logger.warn({ err: error }, 'Could not reload endpoints')),
  });
  const reloadTimer = setInterval(
    () => void endpoints.reload().catch((error: unknown) => logger.warn({ err: error }, 'Could not reload endpoints')),
    options.endpointReloadMs ?? 5000,
  );

  const fanOut = await startFanOut({
    messaging,
    fanOut: { js: messaging.js, collections, writers, endpoints, metrics },
    logger,
    logContext: options.logContext,
    concurrency: options.fanOutConcurrency ?? 32,
    ackWaitMs,
  });
  const stopRetention = options.retention
    ? startRetentionLoop({ collections, clock, logger, ...options.retention })
    : undefined;

  return {
    collections,
    endpoints,
    metrics,
    healthy: () => fanOut.healthy && (lanes?.healthy ?? false),
    reloadEndpoints: () => endpoints.reload(),
    async stop(graceMs) {
      clearInterval(reloadTimer);
      stopRetention?.();
      subscription.unsubscribe();
      await fanOut.stop(graceMs);
      await lanes?.stop(graceMs);
    },
  };
}
