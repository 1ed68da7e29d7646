import type { JetStreamClient } from '@nats-io/jetstream';
import type { BerthLogger } from '@berth/logger';
import { describeError } from '@berth/messaging';
import { asOperationOwner, OPERATION_LEASE_MS } from './operation-owner';
import { republishWebhookEvent } from './republish-webhook-event';
import { recordRequeue } from './requeue-state';
import { heldBy } from './row-lease';
import { DEFAULT_LIVE_MESSAGE_GRACE_MS, messageState } from './round-state';
import { systemClock, type Clock } from '@berth/contract';
import type { EventLease, Inbox, InboxEventDocument } from './types';
import { raiseSetAsideAlert, type WebhookAlertHook, type WebhookSetAsideMetric } from './webhook-alerts';
import { withEventLease } from './with-event-lease';

/** Failed attempts after which the recovery cron sets an event aside: three rounds of 11. */
export const DEFAULT_MAX_ATTEMPTS = 33;

/** How old an unprocessed event must be before the recovery cron looks at it: 15 minutes. */
export const DEFAULT_RECOVERY_MIN_AGE_MS = 15 * 60 * 1000;

/** The fields the recovery reads before taking a lease: what {@link messageState} needs, not the payload. */
const STATE_FIELDS = {
  _id: 1,
  provider: 1,
  eventId: 1,
  receivedAt: 1,
  lastAttemptAt: 1,
  leaseOwner: 1,
  leaseUntil: 1,
  nextAttemptAt: 1,
  roundEndedAt: 1,
  requeuedAt: 1,
} as const;

/** Options for {@link recoverWebhookEvents}. */
export interface RecoverWebhookEventsOptions {
  inbox: Inbox;
  /** Where requeued events are published (`WEBHOOKS`). */
  messaging: { js: JetStreamClient };
  logger: BerthLogger;
  /** Defaults to the system clock. */
  clock?: Clock;
  /** Called once per event set aside (see {@link createWebhookAlertHook}); optional. */
  alert?: WebhookAlertHook;
  /** Counted once per event set aside: a prom-client Counter with label `provider`, or a callback. */
  metric?: WebhookSetAsideMetric;
  /** Events younger than this are left to their first delivery. Default 15 minutes. */
  minAgeMs?: number;
  /** Failed attempts after which the event is set aside instead of requeued. Default 33. */
  maxAttempts?: number;
  /** How long after its delivery was due a message still counts as live (see `messageState`). Default 10 minutes. */
  liveGraceMs?: number;
  /** Requeues and set-asides per run at most (default 1000); the rest wait for the next run. */
  maxActions?: number;
  /** This run's lease owner id; defaults to `recovery:<hostname>:<pid>:<random>`. */
  owner?: string;
  leaseMs?: number;
}

/** What one run of {@link recoverWebhookEvents} did. */
export interface RecoverWebhookEventsResult {
  /** Events published again (a new round of attempts). */
  requeued: number;
  /** Events set aside by this run (attempts used up). */
  abandoned: number;
  /** Events with a live message, or being worked on by another replica: not touched. */
  leftAlone: number;
  /** Alerts raised by this run (its set-asides, and earlier ones still owed an alert, e.g. an `UnrecoverableError`'s). */
  alerted: number;
  /** Events whose requeue could not be published (retried after the grace) or whose handling threw. */
  failed: number;
}

/**
 * The recovery cron's work (every 10 minutes), callable on demand. For every event still unprocessed `minAgeMs`
 * after it arrived and not set aside:
 * - a live message (waiting for a retry, being delivered, an attempt running: see `messageState`) → left alone;
 * - no live message and fewer than `maxAttempts` attempts → requeued: published again to
 *   `webhooks.<provider>.<type>` with its `Berth-*` headers and `Nats-Msg-Id` `<provider>/requeue/<n>:<eventId>`;
 * - no live message and `maxAttempts` attempts or more → set aside (`abandonedAt`) with one alert: a log line at
 *   error level, the metric, and the `alert` hook.
 * Then events set aside earlier but still owed their alert get it (a consumer's `UnrecoverableError`, or a run that
 * stopped between the two steps).
 *
 * Safe with any number of replicas running it at once: each event is decided and written under the event's lease
 * (one writer; a consumer that gets the event meanwhile retries after the lease), after reading it again; and an
 * alert is raised by whoever inserts its `inboxAlerts` document first.
 */
export async function recoverWebhookEvents(options: RecoverWebhookEventsOptions): Promise<RecoverWebhookEventsResult> {
  const { inbox, logger } = options;
  const clock = options.clock ?? systemClock;
  const minAgeMs = options.minAgeMs ?? DEFAULT_RECOVERY_MIN_AGE_MS;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const graceMs = options.liveGraceMs ?? DEFAULT_LIVE_MESSAGE_GRACE_MS;
  const maxActions = options.maxActions ?? 1000;
  const owner = asOperationOwner(options.owner, 'recovery');
  const leaseMs = options.leaseMs ?? OPERATION_LEASE_MS;
  const result: RecoverWebhookEventsResult = { requeued: 0, abandoned: 0, leftAlone: 0, alerted: 0, failed: 0 };
  const alertOptions = { inbox, owner, clock, logger, alert: options.alert, metric: options.metric };

  // Read first, then act: the list holds the small state fields only, and no cursor stays open while writing.
  const start = clock.now();
  const candidates = await inbox.events
    .find(
      { processedAt: null, abandonedAt: null, receivedAt: { $lte: new Date(start.getTime() - minAgeMs) } },
      { projection: STATE_FIELDS },
    )
    .sort({ receivedAt: 1 })
    .toArray();
  let actions = 0;
  for (const listed of candidates) {
    if (actions >= maxActions) break;
    if (messageState(listed, clock.now(), graceMs).live) {
      result.leftAlone += 1;
      continue;
    }
    // Read the row again (by _id: cheap everywhere) before taking its lease: another replica may have just requeued
    // it, and a lease taken for nothing would make the consumer it requeued for find the event busy.
    const seen = await inbox.events.findOne(
      { _id: listed._id },
      { projection: { ...STATE_FIELDS, processedAt: 1, abandonedAt: 1 } },
    );
    if (!seen || seen.processedAt || seen.abandonedAt || messageState(seen, clock.now(), graceMs).live) {
      result.leftAlone += 1;
      continue;
    }
    actions += 1;
    try {
      const outcome = await withEventLease({ inbox, key: seen._id, owner, leaseMs, clock }, async (lease, event) => {
        const now = clock.now();
        if (event.processedAt || event.abandonedAt) return { kind: 'settled' as const };
        if (messageState(event, now, graceMs).live) return { kind: 'live' as const };
        if (event.attempts >= maxAttempts) {
          const setAside = await inbox.events.findOneAndUpdate(
            heldBy(lease),
            { $set: { abandonedAt: now, alertedAt: null }, $inc: { setAsideCount: 1 } },
            { returnDocument: 'after' },
          );
          const alerted = setAside?.abandonedAt ? await raiseOwedAlert(setAside, lease, alertOptions) : false;
          return { kind: 'abandoned' as const, alerted };
        }
        const msgId = await recordRequeue({ inbox, event, lease, now });
        return msgId ? { kind: 'requeue' as const, event, msgId } : { kind: 'settled' as const };
      });
      if (!outcome.acquired || outcome.value.kind === 'live' || outcome.value.kind === 'settled') {
        result.leftAlone += 1;
        continue;
      }
      const done = outcome.value;
      if (done.kind === 'abandoned') {
        result.abandoned += 1;
        if (done.alerted) result.alerted += 1;
        continue;
      }
      await republishWebhookEvent({ js: options.messaging.js, event: done.event, msgId: done.msgId });
      result.requeued += 1;
      logger.info(
        {
          provider: done.event.provider,
          eventId: done.event.eventId,
          attempts: done.event.attempts,
          msgId: done.msgId,
        },
        `Webhook event ${done.event.provider}:${done.event.eventId} requeued after ${done.event.attempts} attempt(s)`,
      );
    } catch (error) {
      result.failed += 1;
      logger.error(
        { err: error, provider: seen.provider, eventId: seen.eventId },
        `Could not recover webhook event ${seen._id}: ${describeError(error)}`,
      );
    }
  }

  const owed = await inbox.events
    .find({ abandonedAt: { $ne: null }, processedAt: null, alertedAt: null }, { projection: STATE_FIELDS })
    .toArray();
  for (const seen of owed) {
    try {
      const outcome = await withEventLease({ inbox, key: seen._id, owner, leaseMs, clock }, async (lease, event) =>
        event.abandonedAt && !event.processedAt && !event.alertedAt
          ? raiseOwedAlert(event, lease, alertOptions)
          : false,
      );
      if (outcome.acquired && outcome.value) result.alerted += 1;
    } catch (error) {
      result.failed += 1;
      logger.error(
        { err: error, provider: seen.provider, eventId: seen.eventId },
        `Could not alert on set-aside webhook event ${seen._id}: ${describeError(error)}`,
      );
    }
  }

  if (result.requeued || result.abandoned || result.alerted || result.failed)
    logger.info({ ...result }, 'Webhook recovery run');
  return result;
}

/**
 * Raises the alert of the event's current set-aside unless already raised, then notes `alertedAt` on the row, under
 * the lease the caller holds.
 */
async function raiseOwedAlert(
  event: InboxEventDocument,
  lease: EventLease,
  options: Omit<Parameters<typeof raiseSetAsideAlert>[0], 'event'>,
): Promise<boolean> {
  const raised = await raiseSetAsideAlert({ ...options, event });
  await options.inbox.events.updateOne(heldBy(lease), { $set: { alertedAt: options.clock.now() } });
  return raised;
}
