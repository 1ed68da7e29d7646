import type { BerthLogger } from '@berth/logger';
import { describeError } from '@berth/messaging';
import { isDuplicateKeyError } from '@berth/store';
import type { Clock } from '@berth/contract';
import type { Inbox, InboxEventDocument } from './types';

/** What an alert about an event set aside says. */
export interface WebhookEventAlert {
  /** `<provider>:<eventId>#<setAsideCount>`: one alert per set-aside of an event. */
  alertId: string;
  provider: string;
  eventId: string;
  type: string;
  attempts: number;
  lastError: string | null;
  receivedAt: Date;
  abandonedAt: Date;
  /** One line for people: the event, its attempts, its last error and what to do. */
  text: string;
}

/** Where an alert goes besides the error log line and the metric: Slack, a webhook, a pager… */
export type WebhookAlertHook = (alert: WebhookEventAlert) => Promise<void> | void;

/**
 * The metric counted once per alert: a prom-client `Counter` with label `provider` (create it from
 * {@link WEBHOOK_SET_ASIDE_COUNTER}), or a callback.
 */
export type WebhookSetAsideMetric = { inc(labels: { provider: string }): void } | ((alert: WebhookEventAlert) => void);

/** The counter's definition: `new Counter({ ...WEBHOOK_SET_ASIDE_COUNTER, registers: [registry] })`. */
export const WEBHOOK_SET_ASIDE_COUNTER = {
  name: 'webhook_events_set_aside_total',
  help: 'Webhook events set aside (too many failed attempts, or an unrecoverable error), one per alert raised',
  labelNames: ['provider'],
} as const;

/** Options for {@link raiseSetAsideAlert}. */
export interface RaiseSetAsideAlertOptions {
  inbox: Inbox;
  /** The event as set aside (`abandonedAt` set), read under its lease. */
  event: InboxEventDocument;
  /** Who raises it. */
  owner: string;
  clock: Clock;
  logger: BerthLogger;
  alert?: WebhookAlertHook;
  metric?: WebhookSetAsideMetric;
}

/** The id of the alert of an event's current set-aside. */
export function alertIdOf(event: Pick<InboxEventDocument, '_id' | 'setAsideCount'>): string {
  return `${event._id}#${Math.max(event.setAsideCount ?? 0, 1)}`;
}

/**
 * Raises the one alert of an event's set-aside: inserts `inboxAlerts/<event>#<setAsideCount>`, and only if this
 * insert created it (of any number of replicas trying, the unique `_id` lets one through) logs one line at error
 * level, counts the metric and calls
 * the hook. A hook that throws is logged and noted on the alert (`hookError`); the alert is not raised again.
 * Resolves whether this call raised it.
 */
export async function raiseSetAsideAlert(options: RaiseSetAsideAlertOptions): Promise<boolean> {
  const { inbox, event, owner, clock, logger } = options;
  const alertId = alertIdOf(event);
  const abandonedAt = event.abandonedAt ?? clock.now();
  try {
    await inbox.alerts.insertOne({
      _id: alertId,
      provider: event.provider,
      eventId: event.eventId,
      type: event.type,
      attempts: event.attempts,
      lastError: event.lastError,
      abandonedAt,
      raisedAt: clock.now(),
      raisedBy: owner,
      hookError: null,
    });
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
  const text =
    `Webhook event ${event.provider}:${event.eventId} (${event.type}) set aside after ${event.attempts} attempt(s); ` +
    `last error: ${event.lastError ?? 'none recorded'}. Fix the cause, then run \`berth webhooks retry-abandoned\`.`;
  const alert: WebhookEventAlert = {
    alertId,
    provider: event.provider,
    eventId: event.eventId,
    type: event.type,
    attempts: event.attempts,
    lastError: event.lastError,
    receivedAt: event.receivedAt,
    abandonedAt,
    text,
  };
  logger.error(
    {
      alert: 'webhook_event_set_aside',
      alertId,
      provider: event.provider,
      eventId: event.eventId,
      eventType: event.type,
      attempts: event.attempts,
      lastError: event.lastError,
    },
    text,
  );
  try {
    if (typeof options.metric === 'function') options.metric(alert);
    else options.metric?.inc({ provider: event.provider });
  } catch (error) {
    logger.warn({ err: error, alertId }, 'Could not count the set-aside webhook event in the metric');
  }
  if (options.alert) {
    try {
      await options.alert(alert);
    } catch (error) {
      logger.error(
        { err: error, alertId },
        `The alert hook failed for webhook event ${event.provider}:${event.eventId}: ${describeError(error)}`,
      );
      await inbox.alerts
        .updateOne({ _id: alertId }, { $set: { hookError: describeError(error).slice(0, 2000) } })
        .catch(() => undefined);
    }
  }
  return true;
}

/** Options for {@link createWebhookAlertHook}. */
export interface WebhookAlertHookOptions {
  /** `ALERT_WEBHOOK_URL`: a Slack incoming webhook, or any endpoint taking a JSON POST. */
  url: string;
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Per try (default 5000). */
  timeoutMs?: number;
  /** Tries in all (default 3), one second apart then two. */
  tries?: number;
  /** Logs a failed try at warn level. */
  logger?: BerthLogger;
}

/**
 * An alert hook that POSTs `{ text, alert }` as JSON to a URL: `text` is what a Slack incoming webhook shows (it
 * ignores the rest), `alert` the {@link WebhookEventAlert} fields for any other receiver. A non-2xx answer, a
 * network error or a timeout is tried again, up to `tries`; then the hook throws (the alert is logged and counted
 * anyway).
 */
export function createWebhookAlertHook(options: WebhookAlertHookOptions): WebhookAlertHook {
  const doFetch = options.fetch ?? fetch;
  const tries = Math.max(1, options.tries ?? 3);
  return async (alert) => {
    const body = JSON.stringify({ text: alert.text, alert });
    for (let attempt = 1; ; attempt++) {
      try {
        const response = await doFetch(options.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
        });
        if (response.ok) return;
        throw new Error(`Alert webhook answered ${response.status}`);
      } catch (error) {
        if (attempt >= tries) throw error;
        options.logger?.warn(
          { err: error, attempt, alertId: alert.alertId },
          `Alert webhook try ${attempt} failed: ${describeError(error)}`,
        );
        await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** (attempt - 1)));
      }
    }
  };
}
