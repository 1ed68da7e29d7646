import { ensureConsumer, isNotFound, startConsumer, type ConsumerRunner, type Messaging } from '@berth/messaging';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import type { EndpointDocument } from '../endpoints/endpoint-document';
import { deliverySubject, endpointConsumerName, OUTBOUND_DELIVERIES_STREAM, retrySubject } from '../names';
import { attemptDelivery, type AttemptDependencies } from './attempt-delivery';
import { createSharedRateLimiter, type ClosableRateLimiter, type TakeSharedStart } from './shared-rate-limiter';

/** Options for {@link EndpointLanes}. */
export interface EndpointLanesOptions {
  messaging: Messaging;
  attempt: AttemptDependencies;
  logger: BerthLogger;
  logContext?: LogContextStore;
  /** Deliveries in flight at once per unordered endpoint, in this replica (an ordered endpoint has one). */
  concurrency: number;
  ackWaitMs: number;
  /**
   * Takes a start from an endpoint's rate window, shared by every replica (see `openEndpointRateWindows`): the
   * replicas together send at most an endpoint's `rateLimitPerSecond`.
   */
  takeRateStart: TakeSharedStart;
}

interface Lane {
  key: string;
  runner: ConsumerRunner;
  limiter?: ClosableRateLimiter;
}

/**
 * One lane per endpoint: a durable consumer of its own subject `outbound.deliver.<endpointId>` and a runner pulling
 * from it, so a slow, failing or rate-limited endpoint holds up nobody else. An ordered endpoint's consumer has
 * `max_ack_pending: 1`, enforced by the server across replicas: its next delivery is not handed out until the head
 * is acked. Lanes follow the endpoint registry: {@link EndpointLanes.reconcile} starts lanes for new endpoints and
 * restarts those whose ordering or limit changed, and retires the lanes of deleted endpoints: their consumer is
 * deleted and the deliveries and retries still queued for them are purged.
 */
export class EndpointLanes {
  private readonly lanes = new Map<string, Lane>();
  private stopped = false;
  private reconciling: Promise<void> = Promise.resolve();

  constructor(private readonly options: EndpointLanesOptions) {}

  /** Brings the lanes in line with `endpoints` (serialised: concurrent calls run one after the other). */
  reconcile(endpoints: readonly EndpointDocument[]): Promise<void> {
    this.reconciling = this.reconciling.then(
      () => this.reconcileNow(endpoints),
      () => this.reconcileNow(endpoints),
    );
    return this.reconciling;
  }

  /** Endpoints with a running lane. */
  get endpointIds(): string[] {
    return [...this.lanes.keys()];
  }

  /** True while every running lane pulls ({@link ConsumerRunner.healthy}). */
  get healthy(): boolean {
    return !this.stopped && [...this.lanes.values()].every((lane) => lane.runner.healthy);
  }

  /** Stops every lane, letting running attempts finish within `graceMs`. */
  async stop(graceMs?: number): Promise<void> {
    this.stopped = true;
    await this.reconciling.catch(() => undefined);
    await Promise.all([...this.lanes.values()].map((lane) => stopLane(lane, graceMs)));
    this.lanes.clear();
  }

  private async reconcileNow(endpoints: readonly EndpointDocument[]): Promise<void> {
    const known = new Set(endpoints.map((endpoint) => endpoint._id));
    for (const [endpointId, lane] of [...this.lanes]) {
      if (known.has(endpointId) || this.stopped) continue;
      this.lanes.delete(endpointId);
      await stopLane(lane);
      await this.retire(endpointId).catch((error: unknown) =>
        this.options.logger.warn(
          { err: error, endpointId },
          `Could not remove the queue of deleted endpoint ${endpointId}`,
        ),
      );
    }
    for (const endpoint of endpoints) {
      if (this.stopped) return;
      const key = `${endpoint.ordered}:${endpoint.rateLimitPerSecond ?? 'none'}`;
      const lane = this.lanes.get(endpoint._id);
      if (lane?.key === key) continue;
      try {
        if (lane) {
          this.lanes.delete(endpoint._id);
          await stopLane(lane);
        }
        this.lanes.set(endpoint._id, { key, ...(await this.startLane(endpoint)) });
      } catch (error) {
        this.options.logger.error(
          { err: error, endpointId: endpoint._id },
          `Could not start the delivery lane of endpoint ${endpoint._id}; retried at the next reload`,
        );
      }
    }
  }

  /** Deletes a deleted endpoint's consumer and purges what was queued for it; every replica may do it, in any order. */
  private async retire(endpointId: string): Promise<void> {
    const { jsm } = this.options.messaging;
    await jsm.consumers.delete(OUTBOUND_DELIVERIES_STREAM, endpointConsumerName(endpointId)).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
    await jsm.streams.purge(OUTBOUND_DELIVERIES_STREAM, { filter: deliverySubject(endpointId) });
    await jsm.streams.purge(OUTBOUND_DELIVERIES_STREAM, { filter: retrySubject(endpointId, '>') });
    this.options.logger.info(
      { endpointId },
      `Endpoint ${endpointId} deleted: its lane, consumer and queued deliveries are gone`,
    );
  }

  private async startLane(endpoint: EndpointDocument): Promise<Omit<Lane, 'key'>> {
    const { messaging, ackWaitMs } = this.options;
    const concurrency = endpoint.ordered ? 1 : this.options.concurrency;
    const consumer = endpointConsumerName(endpoint._id);
    await ensureConsumer(messaging.jsm, {
      stream: OUTBOUND_DELIVERIES_STREAM,
      durable: consumer,
      filterSubjects: [deliverySubject(endpoint._id)],
      ackWaitMs,
      maxAckPending: endpoint.ordered ? 1 : Math.max(concurrency * 4, 64),
      description: `Deliveries to endpoint ${endpoint._id}`,
    });
    const limiter = endpoint.rateLimitPerSecond
      ? createSharedRateLimiter({
          key: endpoint._id,
          ratePerSecond: endpoint.rateLimitPerSecond,
          take: this.options.takeRateStart,
        })
      : undefined;
    const laneState = { endpointId: endpoint._id, ordered: endpoint.ordered, limiter };
    const runner = await startConsumer({
      js: messaging.js,
      stream: OUTBOUND_DELIVERIES_STREAM,
      consumer,
      concurrency,
      ackWaitMs,
      pullExpiresMs: 5000,
      logger: this.options.logger,
      logContext: this.options.logContext,
      contextFor: (message) => ({ endpointId: endpoint._id, deliveryId: message.msgId?.split(':')[0] ?? '' }),
      // Attempts and their schedule are the handler's business; a throw here is an infrastructure failure (MongoDB,
      // NATS) or an ordered endpoint's retry, which carries its own delay.
      retryPolicy: { maxAttempts: Number.MAX_SAFE_INTEGER, delayAfter: () => 5000 },
      handler: (message) => attemptDelivery(this.options.attempt, laneState, message),
    });
    return { runner, limiter };
  }
}

/**
 * Stops a lane: the runner stops pulling (and hands back what it pulled but did not start), then the limiter refuses
 * the deliveries still waiting for the rate, which go back to the queue at once for another replica, and the
 * attempts already sending finish within `graceMs`.
 */
async function stopLane(lane: Lane, graceMs?: number): Promise<void> {
  const stopped = lane.runner.stop(graceMs);
  lane.limiter?.close();
  await stopped;
}
