import type { JetStreamClient, JsMsg, ConsumerMessages } from '@nats-io/jetstream';
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
  /** The consumer's ack wait; running handlers send `working()` at a third of it. */
  ackWaitMs: number;
  logger: BerthLogger;
  logContext?: LogContextStore;
  /** Log fields for a message (job name, event id…), on every line its handler writes. */
  contextFor?: (message: ReceivedMessage) => LogContext;
  /**
   * Called before a message is terminated for good (an `UnrecoverableError`, or the last attempt failed): copy it
   * to the dead letters, mark the inbox row… If it throws, the message is retried later instead of terminated.
   */
  onGiveUp?: (message: ReceivedMessage, error: unknown, reason: GiveUpReason) => Promise<void>;
  /** Called after each handled message, for metrics. */
  onOutcome?: (message: ReceivedMessage, outcome: 'acked' | 'retried' | 'terminated', durationMs: number) => void;
}

/** A running consumer. */
export interface ConsumerRunner {
  /** Handlers running now. */
  readonly inFlight: number;
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
 */
export async function startConsumer(options: ConsumerRunnerOptions): Promise<ConsumerRunner> {
  const consumer = await options.js.consumers.get(options.stream, options.consumer);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: Math.max(options.concurrency, 1) });
  const tracer = trace.getTracer('berth-messaging');
  let inFlight = 0;
  let stopping = false;
  const waiters: (() => void)[] = [];
  const idle: (() => void)[] = [];

  const release = (): void => {
    inFlight -= 1;
    waiters.shift()?.();
    if (inFlight === 0) idle.splice(0).forEach((resolve) => resolve());
  };
  const acquire = async (): Promise<void> => {
    while (inFlight >= options.concurrency && !stopping) await new Promise<void>((resolve) => waiters.push(resolve));
    inFlight += 1;
  };

  const settleFailure = async (msg: JsMsg, message: ReceivedMessage, error: unknown): Promise<'retried' | 'terminated'> => {
    const policy = typeof options.retryPolicy === 'function' ? options.retryPolicy(message) : options.retryPolicy;
    const reason: GiveUpReason | undefined =
      error instanceof UnrecoverableError ? 'unrecoverable' : message.deliveryCount >= policy.maxAttempts ? 'exhausted' : undefined;
    if (!reason) {
      const delayMs = error instanceof RetryLaterError ? error.delayMs : policy.delayAfter(message.deliveryCount);
      options.logger.warn({ err: error, attempt: message.deliveryCount, retryInMs: delayMs }, `Attempt ${message.deliveryCount} failed: ${describeError(error)}`);
      msg.nak(delayMs);
      return 'retried';
    }
    try {
      await options.onGiveUp?.(message, error, reason);
    } catch (giveUpError) {
      options.logger.error({ err: giveUpError }, 'Could not set the message aside; it will be retried');
      msg.nak(policy.delayAfter(1));
      return 'retried';
    }
    options.logger.error({ err: error, attempt: message.deliveryCount, reason }, `Gave up after attempt ${message.deliveryCount}: ${describeError(error)}`);
    msg.term(`${reason}: ${describeError(error)}`.slice(0, 256));
    return 'terminated';
  };

  const processOne = async (msg: JsMsg): Promise<void> => {
    const message = toReceivedMessage(msg);
    const started = performance.now();
    const heartbeat = setInterval(() => msg.working(), Math.max(options.ackWaitMs / 3, 250));
    const parent = extractTraceContext(msg.headers);
    const fields = { ...(options.contextFor?.(message) ?? {}), attempt: message.deliveryCount };
    const run = async (): Promise<void> => {
      const span = tracer.startSpan(`process ${options.stream}/${options.consumer}`, {
        kind: SpanKind.CONSUMER,
        attributes: { 'messaging.system': 'nats', 'messaging.destination.name': msg.subject, 'messaging.message.id': message.msgId ?? '', 'messaging.nats.delivery_count': message.deliveryCount },
      }, parent);
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
      await (options.logContext ? options.logContext.run(fields, run) : run());
    } catch (error) {
      options.logger.error({ err: error }, 'Consumer runner failed to settle a message');
    } finally {
      release();
    }
  };

  const loop = (async () => {
    for await (const msg of messages) {
      if (stopping) {
        msg.nak();
        continue;
      }
      await acquire();
      if (stopping) {
        release();
        msg.nak();
        continue;
      }
      void processOne(msg);
    }
  })();

  return {
    get inFlight() {
      return inFlight;
    },
    async stop(graceMs = 30000) {
      stopping = true;
      waiters.splice(0).forEach((resolve) => resolve());
      messages.stop();
      await loop.catch(() => undefined);
      if (inFlight > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((resolve) => idle.push(resolve)),
          new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
        ]);
        clearTimeout(timer);
        if (inFlight > 0) options.logger.warn({ inFlight }, 'Stopped with handlers still running; their messages will be delivered again');
      }
    },
  };
}
