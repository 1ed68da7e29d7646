import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { BerthLogger, LogContext, LogContextStore } from '@berth/logger';
import { describeError, RetryLaterError, UnrecoverableError } from './errors';
import type { RetryPolicy } from './backoff';
import { toReceivedMessage, type ReceivedMessage } from './received-message';
import { extractTraceContext } from './trace-headers';

/** Why a message is given up on. */
export type GiveUpReason = 'unrecoverable' | 'exhausted';

/** Options for {@link startConsumer}. */
export interface ConsumerRunnerOptions {
  js: JetStreamClient;
  stream: string;
  /** A durable pull consumer, provisioned with `ensureConsumer`. */
  consumer: string;
  /** Handlers running at once in this process. */
  concurrency: number;
  /** Resolves when the message's effect is durably applied (then it is acked); throws to retry. */
  handler: (message: ReceivedMessage) => Promise<void>;
  /** Retries of a failed message; may depend on the message (a job's own `retryLimit`). */
  retryPolicy: RetryPolicy | ((message: ReceivedMessage) => RetryPolicy);
  /**
   * The attempt a delivery stands for, counted from 1; compared with the policy's `maxAttempts`, passed to its
   * `delayAfter`, and logged as `attempt`. Defaults to the delivery count. A job republished after earlier
   * attempts (its count travels in its body) starts its new message at that count + 1.
   */
  attemptOf?: (message: ReceivedMessage) => number;
  /**
   * How much work a message carries (default 1): a message holding several jobs weighs as many. The runner
   * pulls only while the weight in hand is below `concurrency`, so a process never holds much more work than it
   * can run at once (and a crash leaves little to redeliver).
   */
  weightOf?: (message: ReceivedMessage) => number;
  /** The consumer's ack wait; running handlers send `working()` at a third of it. */
  ackWaitMs: number;
  /**
   * How long one pull request waits on the server for messages, in ms (default 5000, at least 1000). Pulls ask
   * for exactly as many messages as there are free handler slots, so no message waits unseen in a client buffer
   * while its ack wait runs out.
   */
  pullExpiresMs?: number;
  logger: BerthLogger;
  logContext?: LogContextStore;
  /** Log fields for a message (job name, event id…), on every line its handler writes. */
  contextFor?: (message: ReceivedMessage) => LogContext;
  /**
   * Called before a message is terminated for good (an `UnrecoverableError`, or the last attempt failed): copy it
   * to the dead letters, mark the inbox row… If it throws, the message is retried later instead of terminated.
   */
  onGiveUp?: (message: ReceivedMessage, error: unknown, reason: GiveUpReason) => Promise<void>;
  /**
   * Called before this process hands a delivered message back (a nak: failed attempt, set-aside failure, or a
   * message pulled but not started at shutdown), so the caller can tell deliveries it ended from deliveries whose
   * process died. Awaited; if it throws, the error is logged and the message is naked anyway.
   */
  beforeNak?: (message: ReceivedMessage) => Promise<void>;
  /** Called after each handled message, for metrics. */
  onOutcome?: (message: ReceivedMessage, outcome: 'acked' | 'retried' | 'terminated', durationMs: number) => void;
}

/** Pulls failing in a row after which a runner no longer counts as healthy (about 3 s: a failed pull waits 1 s). */
export const UNHEALTHY_AFTER_FAILED_PULLS = 3;

/** A running consumer. */
export interface ConsumerRunner {
  /** Handlers running now. */
  readonly inFlight: number;
  /**
   * True while the runner pulls: false once it stopped, when its pull loop ended by itself (it then never pulls
   * again), and while its last {@link UNHEALTHY_AFTER_FAILED_PULLS} pulls failed (consumer deleted, stream gone,
   * server away). A service's readiness includes it, so a process whose consumer died does not look healthy.
   */
  readonly healthy: boolean;
  /** Why it is not healthy, for logs and `/readyz`; undefined when it is. */
  readonly problem: string | undefined;
  /**
   * Stops pulling, lets running handlers finish (up to `graceMs`), and resolves when they have. Messages pulled
   * but not started are handed back at once (nak) so another replica takes them.
   */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Pulls from a durable consumer and runs a handler per message with bounded concurrency: ack after success; on
 * failure nak with the retry policy's delay, or give up (terminate) on `UnrecoverableError` or the last attempt.
 * Long handlers keep their lease with `working()`.
 *
 * Each pull asks for as many messages as there are free slots (never more, and fewer when messages carry several
 * units of work, see `weightOf`), so every message this process holds is running and heartbeating; acks are sent without waiting for the server's confirmation, so a slot is free
 * as soon as its handler resolves.
 */
export async function startConsumer(options: ConsumerRunnerOptions): Promise<ConsumerRunner> {
  const consumer = await options.js.consumers.get(options.stream, options.consumer);
  const tracer = trace.getTracer('berth-messaging');
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const pullExpiresMs = Math.max(options.pullExpiresMs ?? 5000, 1000);
  const attemptOf = options.attemptOf ?? ((message: ReceivedMessage) => message.deliveryCount);
  const weightOf = options.weightOf ?? (() => 1);
  let inFlight = 0;
  let weightInHand = 0;
  // Recent weight per message. It starts high, and goes back up whenever the consumer was idle, so the first pull
  // of a burst asks for one message, and pulls grow as the messages turn out to be light.
  let averageWeight = concurrency;
  let stopping = false;
  let failedPulls = 0;
  let lastPullError: string | undefined;
  let died: string | undefined;
  let currentPull: ConsumerMessages | undefined;
  let slotWaiter: (() => void) | undefined;
  const idle: (() => void)[] = [];

  const release = (weight: number): void => {
    inFlight -= 1;
    weightInHand -= weight;
    const waiter = slotWaiter;
    slotWaiter = undefined;
    waiter?.();
    if (inFlight === 0) idle.splice(0).forEach((resolve) => resolve());
  };
  const freeSlot = async (): Promise<void> => {
    while ((inFlight >= concurrency || weightInHand >= concurrency) && !stopping)
      await new Promise<void>((resolve) => (slotWaiter = resolve));
  };
  /** Messages to ask for: the free slots, fewer when recent messages carried several units of work each. */
  const pullSize = (): number =>
    Math.max(1, Math.min(concurrency - inFlight, Math.floor((concurrency - weightInHand) / averageWeight)));

  const nak = async (msg: JsMsg, message: ReceivedMessage, delayMs?: number): Promise<void> => {
    try {
      await options.beforeNak?.(message);
    } catch (error) {
      options.logger.warn({ err: error }, `Could not record a handed-back delivery: ${describeError(error)}`);
    }
    msg.nak(delayMs);
  };

  const settleFailure = async (
    msg: JsMsg,
    message: ReceivedMessage,
    error: unknown,
  ): Promise<'retried' | 'terminated'> => {
    const policy = typeof options.retryPolicy === 'function' ? options.retryPolicy(message) : options.retryPolicy;
    const attempt = attemptOf(message);
    const reason: GiveUpReason | undefined =
      error instanceof UnrecoverableError ? 'unrecoverable' : attempt >= policy.maxAttempts ? 'exhausted' : undefined;
    if (!reason) {
      const delayMs = error instanceof RetryLaterError ? error.delayMs : policy.delayAfter(attempt);
      options.logger.warn(
        { err: error, attempt, retryInMs: delayMs },
        `Attempt ${attempt} failed: ${describeError(error)}`,
      );
      await nak(msg, message, delayMs);
      return 'retried';
    }
    try {
      await options.onGiveUp?.(message, error, reason);
    } catch (giveUpError) {
      options.logger.error({ err: giveUpError }, 'Could not set the message aside; it will be retried');
      await nak(msg, message, policy.delayAfter(1));
      return 'retried';
    }
    options.logger.error({ err: error, attempt, reason }, `Gave up after attempt ${attempt}: ${describeError(error)}`);
    msg.term(`${reason}: ${describeError(error)}`.slice(0, 256));
    return 'terminated';
  };

  const processOne = async (msg: JsMsg, message: ReceivedMessage, weight: number): Promise<void> => {
    const started = performance.now();
    const heartbeat = setInterval(() => msg.working(), Math.max(options.ackWaitMs / 3, 250));
    const parent = extractTraceContext(msg.headers);
    const run = async (): Promise<void> => {
      const span = tracer.startSpan(
        `process ${options.stream}/${options.consumer}`,
        {
          kind: SpanKind.CONSUMER,
          attributes: {
            'messaging.system': 'nats',
            'messaging.destination.name': msg.subject,
            'messaging.message.id': message.msgId ?? '',
            'messaging.nats.delivery_count': message.deliveryCount,
          },
        },
        parent,
      );
      let outcome: 'acked' | 'retried' | 'terminated';
      try {
        await context.with(trace.setSpan(parent, span), () => options.handler(message));
        msg.ack();
        outcome = 'acked';
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: describeError(error) });
        outcome = await context.with(trace.setSpan(parent, span), () => settleFailure(msg, message, error));
      } finally {
        clearInterval(heartbeat);
        span.end();
      }
      options.onOutcome?.(message, outcome, performance.now() - started);
    };
    try {
      const fields = options.logContext
        ? { ...(options.contextFor?.(message) ?? {}), attempt: attemptOf(message) }
        : undefined;
      await (options.logContext && fields ? options.logContext.run(fields, run) : run());
    } catch (error) {
      options.logger.error({ err: error }, 'Consumer runner failed to settle a message');
    } finally {
      release(weight);
    }
  };

  const loop = (async () => {
    while (!stopping) {
      await freeSlot();
      if (stopping) break;
      try {
        const pull = await consumer.fetch({ max_messages: pullSize(), expires: pullExpiresMs });
        currentPull = pull;
        if (stopping) pull.stop();
        let received = 0;
        for await (const msg of pull) {
          received += 1;
          if (stopping) {
            await nak(msg, toReceivedMessage(msg));
            continue;
          }
          const message = toReceivedMessage(msg);
          const weight = Math.max(0, weightOf(message));
          averageWeight = Math.max(1, (averageWeight + weight) / 2);
          inFlight += 1;
          weightInHand += weight;
          void processOne(msg, message, weight);
        }
        if (received === 0) averageWeight = concurrency;
        failedPulls = 0;
      } catch (error) {
        if (stopping) break;
        failedPulls += 1;
        lastPullError = describeError(error);
        options.logger.warn(
          { err: error, stream: options.stream, consumer: options.consumer },
          `Pull from ${options.stream}/${options.consumer} failed: ${describeError(error)}`,
        );
        await new Promise((resolve) => setTimeout(resolve, 1000));
      } finally {
        currentPull = undefined;
      }
    }
  })()
    .then(
      () => {
        if (!stopping) died = 'its pull loop ended';
      },
      (error: unknown) => {
        died = `its pull loop failed: ${describeError(error)}`;
      },
    )
    .finally(() => {
      if (died)
        options.logger.error(
          { stream: options.stream, consumer: options.consumer },
          `Consumer ${options.stream}/${options.consumer} stopped pulling: ${died}`,
        );
    });

  const problem = (): string | undefined => {
    if (died) return died;
    if (stopping) return 'stopped';
    if (failedPulls >= UNHEALTHY_AFTER_FAILED_PULLS)
      return `${failedPulls} pulls in a row failed, last: ${lastPullError}`;
    return undefined;
  };

  return {
    get inFlight() {
      return inFlight;
    },
    get problem() {
      return problem();
    },
    get healthy() {
      return problem() === undefined;
    },
    async stop(graceMs = 30000) {
      stopping = true;
      const waiter = slotWaiter;
      slotWaiter = undefined;
      waiter?.();
      currentPull?.stop();
      await loop;
      if (inFlight > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((resolve) => idle.push(resolve)),
          new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
        ]);
        clearTimeout(timer);
        if (inFlight > 0)
          options.logger.warn(
            { inFlight },
            'Stopped with handlers still running; their messages will be delivered again',
          );
      }
    },
  };
}
