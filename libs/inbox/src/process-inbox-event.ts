import type { BerthLogger } from '@berth/logger';
import {
  decideRetry,
  RetryLaterError,
  ScheduledRetryError,
  UnrecoverableError,
  type ReceivedMessage,
  type RetryDecision,
  type RetryPolicy,
} from '@berth/messaging';
import { claimEvent } from './claim-event';
import { inboxEventKey } from './collections';
import { extendEventLease } from './extend-event-lease';
import { markProcessed } from './mark-processed';
import { isOperationOwner } from './operation-owner';
import { recordFailure } from './record-failure';
import type { Clock } from '@berth/contract';
import type { EventLease, Inbox, WebhookEvent } from './types';
import { readWebhookMessage } from './webhook-message';

/** The event handed to a consumer's handler: the inbox row's facts, the parsed body and this attempt's number. */
export interface InboxHandlerEvent extends WebhookEvent {
  /** The provider's JSON body, parsed. */
  body: unknown;
  /** 1 on the first attempt, counted across deliveries and replicas. */
  attempt: number;
}

/** Applies one event's effect. Must be safe to run again (after a crash, a lost lease): read fresh state, write idempotently. */
export type InboxEventHandler = (event: InboxHandlerEvent) => Promise<void>;

/** Options for {@link processInboxEvent}. */
export interface ProcessInboxEventOptions {
  inbox: Inbox;
  /** The `WEBHOOKS` message being handled. */
  message: ReceivedMessage;
  handler: InboxEventHandler;
  /** This replica's id, the lease owner. */
  owner: string;
  /** How long a claim holds; renewed every third of it while the handler runs. */
  leaseMs: number;
  clock: Clock;
  logger: BerthLogger;
  /**
   * The consumer's retry policy (the one its transport was given). With it, a failure records when the message
   * will be retried (`nextAttemptAt`) or that its round ended (`roundEndedAt`, the last attempt failed), which the
   * recovery cron reads to leave a live message alone; and the handler's error is rethrown as a
   * {@link ScheduledRetryError} carrying that same delay. Without it, only `lastError` is recorded.
   */
  retryPolicy?: RetryPolicy;
}

/** How {@link processInboxEvent} ended without throwing; in every case the message can be acked. */
export type ProcessInboxEventResult = 'processed' | 'already_processed' | 'abandoned';

/** The shortest delay asked of JetStream before retrying a busy event. */
const MIN_BUSY_RETRY_MS = 100;

/** How long an attempt waits for an inbox operation holding the event before asking JetStream to retry later. */
const OPERATION_WAIT_MS = 2000;

/**
 * Runs one `WEBHOOKS` message through the inbox, for the consumers' `@EventPattern` handlers:
 * 1. claim it, recording it if the inbox has no row yet (one conditional write): already processed → resolve (the transport acks, nothing runs); set aside → resolve with a warning;
 *    another attempt holds a live lease → throw {@link RetryLaterError} for the rest of that lease (an inbox
 *    operation's lease is waited for, up to 2 s, first);
 * 2. run the handler, renewing the lease meanwhile;
 * 3. success → `processedAt`, resolve (ack). Failure → `lastError`, the retry state (with `retryPolicy`: when the
 *    retry is due, or that the round ended) and `abandonedAt` for an {@link UnrecoverableError}; release the lease,
 *    rethrow (the transport naks with the recorded delay, or gives up).
 */
export async function processInboxEvent(options: ProcessInboxEventOptions): Promise<ProcessInboxEventResult> {
  const { message, ...rest } = options;
  return applyInboxEvent({ ...rest, event: readWebhookMessage(message), deliveryCount: message.deliveryCount });
}

/** Options for {@link applyInboxEvent}: those of {@link processInboxEvent}, with the event already read. */
export interface ApplyInboxEventOptions extends Omit<ProcessInboxEventOptions, 'message'> {
  event: WebhookEvent;
  /** The delivery count of the message carrying the event (1 on the first delivery). */
  deliveryCount: number;
}

/**
 * {@link processInboxEvent} for an event already read from its message (one event of a batch message, say): the
 * same steps, with the retry decision taken on `deliveryCount`.
 */
export async function applyInboxEvent(options: ApplyInboxEventOptions): Promise<ProcessInboxEventResult> {
  const { inbox, owner, leaseMs, clock, logger, event } = options;
  const key = inboxEventKey(event.provider, event.eventId);
  let claim = await claimEvent({ inbox, key, event, owner, leaseMs, clock, logger });
  // An inbox operation (recovery, retry-abandoned, redeliver) holds an event for a few writes: wait for it rather
  // than give the delivery back, which would cost an attempt of the round and the rest of the operation's lease.
  for (
    const started = Date.now();
    claim.status === 'busy' && isOperationOwner(claim.holder) && Date.now() - started < OPERATION_WAIT_MS;
  ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    claim = await claimEvent({ inbox, key, event, owner, leaseMs, clock, logger });
  }
  switch (claim.status) {
    case 'already_processed':
      logger.info({ processedAt: claim.event.processedAt }, 'Webhook event already processed; skipped');
      return 'already_processed';
    case 'abandoned':
      logger.warn(
        { abandonedAt: claim.event.abandonedAt, lastError: claim.event.lastError },
        'Webhook event is set aside; skipped until it is reopened',
      );
      return 'abandoned';
    case 'busy':
      throw new RetryLaterError(
        `Webhook event ${key} is being processed by ${claim.holder}`,
        Math.max(claim.remainingMs, MIN_BUSY_RETRY_MS),
      );
    case 'missing':
      throw new Error(`Webhook event ${key} disappeared from the inbox while it was claimed`);
    case 'claimed':
      break;
  }

  const { lease, attempt } = claim;
  const started = performance.now();
  const stopRenewing = keepLeaseAlive({ inbox, lease, leaseMs, clock, logger });
  try {
    await options.handler({ ...event, body: parseBody(event.payload), attempt });
  } catch (error) {
    await stopRenewing();
    // The transport's own decision, taken here once so the inbox records the very delay the nak will use.
    const next = options.retryPolicy
      ? decideRetry(options.retryPolicy, { attempt: options.deliveryCount, error })
      : undefined;
    await recordFailureSafely(inbox, { lease, attempt }, error, clock, logger, next);
    throw next?.kind === 'retry' && !(error instanceof RetryLaterError)
      ? new ScheduledRetryError(error, next.delayMs)
      : error;
  }
  await stopRenewing();
  if (!(await markProcessed({ inbox, lease, attempt, clock }))) {
    throw new Error(`Lost the lease on webhook event ${key} while processing it; it will be checked again`);
  }
  logger.info(
    { inboxAttempt: attempt, durationMs: Math.round(performance.now() - started) },
    'Webhook event processed',
  );
  return 'processed';
}

function parseBody(payload: string): unknown {
  try {
    return JSON.parse(payload);
  } catch (error) {
    throw new UnrecoverableError('Webhook payload is not valid JSON', { cause: error });
  }
}

/**
 * Renews the lease every third of its length until the returned function is called; that function resolves once
 * no renewal is in flight, so the outcome's write is fenced by the lease's last `until`.
 */
function keepLeaseAlive(options: {
  inbox: Inbox;
  lease: EventLease;
  leaseMs: number;
  clock: Clock;
  logger: BerthLogger;
}): () => Promise<void> {
  let inFlight: Promise<void> | undefined;
  const timer = setInterval(
    () => {
      // One renewal at a time: on a loaded store a renewal can outlast the interval, and each one moves the fence.
      if (inFlight !== undefined) return;
      inFlight = extendEventLease(options)
        .then(
          (renewed) => {
            if (!renewed) options.logger.warn('Lost the lease on the webhook event being processed');
          },
          (error: unknown) => options.logger.warn({ err: error }, 'Could not renew the webhook event lease'),
        )
        .finally(() => (inFlight = undefined));
    },
    Math.max(Math.floor(options.leaseMs / 3), 50),
  );
  timer.unref();
  return async () => {
    clearInterval(timer);
    await inFlight;
  };
}

async function recordFailureSafely(
  inbox: Inbox,
  failed: { lease: EventLease; attempt: number },
  error: unknown,
  clock: Clock,
  logger: BerthLogger,
  next: RetryDecision | undefined,
): Promise<void> {
  try {
    await recordFailure({
      inbox,
      ...failed,
      error,
      clock,
      // Set aside on an UnrecoverableError, the policy known or not.
      abandon: error instanceof UnrecoverableError,
      next:
        next?.kind === 'retry'
          ? { retryAt: new Date(clock.now().getTime() + next.delayMs) }
          : next?.reason === 'exhausted'
            ? 'round-ended'
            : undefined,
    });
  } catch (recordError) {
    logger.error({ err: recordError }, 'Could not record the failure in the inbox; the lease will expire on its own');
  }
}
