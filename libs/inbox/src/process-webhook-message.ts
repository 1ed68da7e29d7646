import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { LogContextStore } from '@berth/logger';
import { WEBHOOK_HEADERS } from '@berth/contract';
import {
  createHeaders,
  describeError,
  extractTraceContext,
  failureOf,
  RetryLaterError,
  UnrecoverableError,
} from '@berth/messaging';
import {
  applyInboxEvent,
  processInboxEvent,
  type ProcessInboxEventOptions,
  type ProcessInboxEventResult,
} from './process-inbox-event';
import { isWebhookBatch, readWebhookBatch, type BatchedWebhookEvent } from './webhook-message';

/** Options for {@link processWebhookMessage}: those of `processInboxEvent`, and how to run a batch's events. */
export interface ProcessWebhookMessageOptions extends ProcessInboxEventOptions {
  /** Events of one batch message run at once (default 8); the consumer's concurrency is a good value. */
  batchConcurrency?: number;
  /** Gives each event of a batch its own log context (provider, eventId, eventType, attempt). */
  logContext?: LogContextStore;
}

const tracer = trace.getTracer('berth-inbox');

/**
 * Runs one `WEBHOOKS` message through the inbox, whether it carries one event or a batch of them (the gateway's
 * group commit). One event: exactly {@link processInboxEvent}. A batch: every event goes through the same steps,
 * each in its own log context and span (a child of the span it was published under), and the message's fate
 * follows from theirs:
 * - every event processed, already processed or set aside → resolve (the transport acks);
 * - an event to retry → throw a {@link RetryLaterError} with the shortest delay asked: the message comes back,
 *   the processed events are skipped by the inbox, the others run again, each with its retry state recorded;
 * - the last attempt of the retry policy failed → throw, and the transport terminates the message; the inbox rows
 *   record that the round ended, and the recovery cron republishes those events one by one.
 */
export async function processWebhookMessage(options: ProcessWebhookMessageOptions): Promise<ProcessInboxEventResult[]> {
  if (!isWebhookBatch(options.message)) return [await processInboxEvent(options)];
  const events = readWebhookBatch(options.message);
  const outcomes = await runWithLimit(events, options.batchConcurrency ?? 8, (event) =>
    applyBatchedEvent(options, event),
  );
  const failures = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
  const retries = failures.filter((failure): failure is RetryLaterError => failure instanceof RetryLaterError);
  if (retries.length > 0) {
    const soonest = retries.reduce((first, next) => (next.delayMs < first.delayMs ? next : first));
    throw new RetryLaterError(
      `${failures.length} of ${events.length} events of the batch failed; first: ${describeError(failureOf(soonest))}`,
      soonest.delayMs,
      { cause: soonest },
    );
  }
  const lastAttemptFailed = failures.find((failure) => !(failure instanceof UnrecoverableError));
  if (lastAttemptFailed !== undefined) throw lastAttemptFailed;
  return outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : 'abandoned'));
}

/** One event of a batch: its own span and log context; an `UnrecoverableError` sets the event aside, not the batch. */
async function applyBatchedEvent(
  options: ProcessWebhookMessageOptions,
  event: BatchedWebhookEvent,
): Promise<ProcessInboxEventResult> {
  const { message, logContext, ...rest } = options;
  const carrier = createHeaders();
  if (event.traceparent) carrier.set('traceparent', event.traceparent);
  if (event.tracestate) carrier.set('tracestate', event.tracestate);
  const parent = extractTraceContext(carrier);
  const span = tracer.startSpan(
    `process ${event.provider}:${event.eventId}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': event.subject ?? message.subject,
        'messaging.message.id': `${event.provider}:${event.eventId}`,
        'messaging.batch.message_count': Number(message.headers?.get(WEBHOOK_HEADERS.batchSize) ?? 0),
      },
    },
    parent,
  );
  const run = (): Promise<ProcessInboxEventResult> =>
    applyInboxEvent({ ...rest, event, deliveryCount: message.deliveryCount });
  const fields = {
    provider: event.provider,
    eventId: event.eventId,
    eventType: event.type,
    attempt: message.deliveryCount,
    batchSize: undefined,
  };
  try {
    return await context.with(trace.setSpan(parent, span), () => (logContext ? logContext.run(fields, run) : run()));
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: describeError(error) });
    if (error instanceof UnrecoverableError) {
      const log = (): void => rest.logger.error({ err: error }, `Webhook event set aside: ${describeError(error)}`);
      if (logContext) logContext.run(fields, log);
      else log();
    }
    throw error;
  } finally {
    span.end();
  }
}

/** Runs `work` over `items`, at most `limit` at a time, and settles every one. */
async function runWithLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = { status: 'fulfilled', value: await work(items[index]) };
      } catch (reason) {
        results[index] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return results;
}
