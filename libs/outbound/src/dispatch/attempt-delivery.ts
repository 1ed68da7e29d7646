import type { JetStreamClient } from '@nats-io/jetstream';
import { decideRetry, RetryLaterError, type ReceivedMessage } from '@berth/messaging';
import { deliverWebhook, type AddressPolicy, type DeliveryAttempt, type ResolveHost } from '../delivery';
import type { OutboundCollections } from '../collections';
import { retrySchedulePolicy } from '../delivery/retry-schedule';
import { scheduleDeliveryRetry, type DeliveryMessage } from '../deliveries/delivery-message';
import { activeSecrets } from '../endpoints/endpoint-document';
import type { DispatcherMetrics } from './dispatcher-metrics';
import {
  disableEndpoint,
  recordEndpointFailure,
  recordEndpointSuccess,
  type EndpointHealthDependencies,
} from './endpoint-health';
import type { LogWriters } from './log-writers';
import type { RateLimiter } from './rate-limiter';
import { recordAttempt, type AttemptResult } from './record-attempt';

/** What an attempt uses. */
export interface AttemptDependencies extends EndpointHealthDependencies {
  js: JetStreamClient;
  collections: Pick<OutboundCollections, 'endpoints' | 'alerts'>;
  writers: Pick<LogWriters, 'attempts'>;
  metrics: DispatcherMetrics;
  policy: AddressPolicy;
  resolve?: ResolveHost;
  timeoutMs: number;
  maxResponseBytes: number;
  /** Delays before each attempt of a round (the Svix schedule by default). */
  retrySchedule: readonly number[];
  /** Jitter of the retry delays, 0 to 1. */
  retryJitter: number;
}

/** The per-endpoint state an attempt runs under. */
export interface EndpointLane {
  readonly endpointId: string;
  /** Retries hold the endpoint's queue (nak with delay) instead of being scheduled behind it. */
  readonly ordered: boolean;
  readonly limiter?: RateLimiter;
}

/**
 * Makes one attempt of one delivery, handed over by its endpoint's consumer, and resolves once the attempt is in the
 * delivery log and its next step is durably queued (then the message is acked):
 * - nothing is read first: a message delivered again after a crash is attempted again and logged as a redelivery
 *   (the receiver dedupes on `webhook-id`). Whether the receiver got the earlier attempt is unknown unless it was
 *   logged, and a logged attempt whose message was not acked is the rare case of a crash between log and ack;
 * - a disabled or unknown endpoint: the delivery is logged `skipped`, nothing is sent;
 * - otherwise waits for the endpoint's rate limit, sends it signed with every active secret, and logs the attempt;
 * - 2xx: `delivered`. 410: `failed`, and the endpoint is disabled at once. Anything else (an address refused
 *   included): retried after the schedule's next delay, or `Retry-After` when longer; `failed` when the schedule is
 *   over or the failures disabled the endpoint. On an unordered endpoint the retry is a message schedule; on an
 *   ordered one the message itself comes back after the delay ({@link RetryLaterError}: the consumer naks it),
 *   holding back the endpoint's later deliveries.
 */
export async function attemptDelivery(
  dependencies: AttemptDependencies,
  lane: EndpointLane,
  received: ReceivedMessage,
): Promise<void> {
  const message = received.json<DeliveryMessage>();
  const roundAttempt = lane.ordered ? message.roundAttempt + received.deliveryCount - 1 : message.roundAttempt;
  const current: DeliveryMessage = { ...message, roundAttempt };
  // An unordered message delivered again was held by a process that died: its attempt is made (and logged) again.
  const redelivery = lane.ordered ? 0 : received.deliveryCount - 1;
  const endpoint = dependencies.endpoints.get(message.endpointId);
  if (!endpoint || endpoint.disabledAt !== null) {
    await recordAttempt(
      dependencies.writers,
      current,
      redelivery,
      undefined,
      { status: 'skipped', nextAttemptAt: null },
      dependencies.clock.now(),
    );
    dependencies.metrics.deliveries.labels('skipped').inc();
    return;
  }
  await lane.limiter?.take();
  const now = dependencies.clock.now();
  const attempt = await deliverWebhook(
    {
      url: endpoint.url,
      messageId: message.deliveryId,
      timestamp: now,
      payload: message.body,
      secrets: activeSecrets(endpoint, now),
    },
    {
      policy: dependencies.policy,
      resolve: dependencies.resolve,
      timeoutMs: dependencies.timeoutMs,
      maxResponseBytes: dependencies.maxResponseBytes,
      clock: dependencies.clock,
    },
  );
  dependencies.metrics.attempts.labels(attempt.outcome).inc();
  dependencies.metrics.attemptDuration.labels(attempt.outcome).observe(attempt.durationMs / 1000);

  if (attempt.outcome === 'delivered') {
    await recordAttempt(
      dependencies.writers,
      current,
      redelivery,
      attempt,
      { status: 'delivered', nextAttemptAt: null },
      now,
    );
    dependencies.metrics.deliveries.labels('delivered').inc();
    await recordEndpointSuccess(dependencies, endpoint);
    return;
  }
  if (attempt.outcome === 'gone') {
    await recordAttempt(
      dependencies.writers,
      current,
      redelivery,
      attempt,
      { status: 'failed', nextAttemptAt: null },
      now,
    );
    dependencies.metrics.deliveries.labels('failed').inc();
    await disableEndpoint(dependencies, endpoint._id, 'gone');
    return;
  }
  const disabled = await recordEndpointFailure(dependencies, endpoint._id, attempt.startedAt);
  const delayMs = disabled ? undefined : retryDelay(dependencies, roundAttempt, attempt);
  const result: AttemptResult =
    delayMs === undefined
      ? { status: 'failed', nextAttemptAt: null }
      : { status: 'pending', nextAttemptAt: new Date(now.getTime() + delayMs) };
  await recordAttempt(dependencies.writers, current, redelivery, attempt, result, now);
  if (delayMs === undefined) {
    dependencies.metrics.deliveries.labels('failed').inc();
    return;
  }
  if (lane.ordered)
    throw new RetryLaterError(
      `Attempt ${roundAttempt} of ${message.deliveryId} failed (${describeAttempt(attempt)}); the endpoint waits for it`,
      delayMs,
    );
  // nats-server fires the schedule on its own wall clock, so the due time is the process's real time plus the
  // delay, not the injected clock (which a test may have moved days ahead).
  await scheduleDeliveryRetry(
    dependencies.js,
    { ...message, roundAttempt: roundAttempt + 1 },
    new Date(Date.now() + delayMs),
  );
}

/** The schedule's next delay, at least what `Retry-After` asked for; undefined when the schedule is over. */
function retryDelay(
  dependencies: AttemptDependencies,
  roundAttempt: number,
  attempt: DeliveryAttempt,
): number | undefined {
  const policy = retrySchedulePolicy({ schedule: dependencies.retrySchedule, jitter: dependencies.retryJitter });
  const decision = decideRetry(policy, { attempt: roundAttempt, minDelayMs: attempt.retryAfterMs ?? 0 });
  return decision.kind === 'retry' ? decision.delayMs : undefined;
}

function describeAttempt(attempt: DeliveryAttempt): string {
  return attempt.statusCode !== undefined ? `HTTP ${attempt.statusCode}` : (attempt.error ?? attempt.outcome);
}
