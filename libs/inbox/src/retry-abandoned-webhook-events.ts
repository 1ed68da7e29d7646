import type { JetStreamClient } from '@nats-io/jetstream';
import type { BerthLogger } from '@berth/logger';
import { describeError } from '@berth/messaging';
import { asOperationOwner, OPERATION_LEASE_MS } from './operation-owner';
import { republishWebhookEvent } from './republish-webhook-event';
import { recordRequeue, reopenFields } from './requeue-state';
import { heldBy } from './row-lease';
import { systemClock, type Clock } from '@berth/contract';
import type { Inbox } from './types';
import { withEventLease } from './with-event-lease';

/** Options for {@link retryAbandonedWebhookEvents}. */
export interface RetryAbandonedWebhookEventsOptions {
  inbox: Inbox;
  /** Defaults to the system clock. */
  clock?: Clock;
  /**
   * With a connection, each reopened event is published again at once (the CLI does this). Without, its round is
   * marked ended, so the next recovery run (within 10 minutes) requeues it.
   */
  messaging?: { js: JetStreamClient };
  /** Only this provider's events. */
  provider?: string;
  logger?: BerthLogger;
  /** Lease owner id; defaults to `retry-abandoned:<hostname>:<pid>:<random>`. */
  owner?: string;
  leaseMs?: number;
}

/** What {@link retryAbandonedWebhookEvents} did. */
export interface RetryAbandonedWebhookEventsResult {
  /** Set-aside events given their attempts back. */
  reopened: number;
  /** Of those, published again by this call (0 without `messaging`). */
  requeued: number;
  /** Reopened but not published (the publish failed): the recovery cron requeues them after its grace. */
  publishFailed: number;
  /** Set-aside events another operation held at that moment (not reopened; run the command again). */
  busy: number;
  /** The events reopened. */
  events: { provider: string; eventId: string; type: string; msgId: string | null }[];
}

/**
 * Gives every set-aside, unprocessed event its attempts back: `attempts` 0, `abandonedAt` and `alertedAt` cleared,
 * `reopenedAt` set, a new round; then requeues it (at once with `messaging`, else through the recovery cron). The
 * last error stays, as history. Running it again changes nothing: no event is set aside any more. An event set
 * aside again later (still failing) gets a new alert.
 *
 * Each event is reopened under its lease, after reading it again, like every inbox operation.
 */
export async function retryAbandonedWebhookEvents(
  options: RetryAbandonedWebhookEventsOptions,
): Promise<RetryAbandonedWebhookEventsResult> {
  const { inbox } = options;
  const clock = options.clock ?? systemClock;
  const owner = asOperationOwner(options.owner, 'retry-abandoned');
  const leaseMs = options.leaseMs ?? OPERATION_LEASE_MS;
  const result: RetryAbandonedWebhookEventsResult = { reopened: 0, requeued: 0, publishFailed: 0, busy: 0, events: [] };

  const abandoned = await inbox.events
    .find(
      { abandonedAt: { $ne: null }, processedAt: null, ...(options.provider ? { provider: options.provider } : {}) },
      { projection: { _id: 1 } },
    )
    .toArray();
  for (const seen of abandoned) {
    const outcome = await withEventLease({ inbox, key: seen._id, owner, leaseMs, clock }, async (lease, event) => {
      if (!event.abandonedAt || event.processedAt) return null;
      const now = clock.now();
      if (options.messaging) {
        const msgId = await recordRequeue({ inbox, event, lease, now, reopen: true });
        return msgId ? { event, msgId } : null;
      }
      const reopened = await inbox.events.updateOne(heldBy(lease), {
        $set: { ...reopenFields(now), nextAttemptAt: null, roundEndedAt: now },
      });
      return reopened.matchedCount === 1 ? { event, msgId: null } : null;
    });
    if (!outcome.acquired && outcome.holder !== null) result.busy += 1;
    if (!outcome.acquired || !outcome.value) continue;
    const { event, msgId } = outcome.value;
    result.reopened += 1;
    result.events.push({ provider: event.provider, eventId: event.eventId, type: event.type, msgId });
    if (!msgId || !options.messaging) continue;
    try {
      await republishWebhookEvent({ js: options.messaging.js, event, msgId });
      result.requeued += 1;
    } catch (error) {
      result.publishFailed += 1;
      options.logger?.error(
        { err: error, provider: event.provider, eventId: event.eventId },
        `Reopened webhook event ${event._id} but could not publish it: ${describeError(error)}`,
      );
    }
  }
  options.logger?.info(
    { reopened: result.reopened, requeued: result.requeued },
    `Reopened ${result.reopened} set-aside webhook event(s)`,
  );
  return result;
}
