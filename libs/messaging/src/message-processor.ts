import type { JsMsg } from '@nats-io/jetstream';
import { context, SpanKind, SpanStatusCode, trace, type Context, type Tracer } from '@opentelemetry/api';
import type { RetryPolicy } from './backoff';
import type { ConsumerRunnerOptions } from './consumer-runner-options';
import { describeError, failureOf } from './errors';
import type { ReceivedMessage } from './received-message';
import { decideRetry } from './retry-decision';
import { extractTraceContext } from './trace-headers';

/** How a message's delivery ended, for `onOutcome`. */
export type MessageOutcome = 'acked' | 'retried' | 'terminated';

/**
 * Runs one delivered message for a consumer runner and settles it: heartbeats (`working()`) while its handler
 * runs, in a consumer span and the message's log context; then ack, or after a failure what {@link decideRetry}
 * says: nak with the delay, or give up (`onGiveUp`, then term).
 */
export class MessageProcessor {
  private readonly tracer: Tracer = trace.getTracer('berth-messaging');

  constructor(private readonly options: ConsumerRunnerOptions) {}

  /** The attempt a delivery stands for: `attemptOf`, else its delivery count. */
  attemptOf(message: ReceivedMessage): number {
    return this.options.attemptOf ? this.options.attemptOf(message) : message.deliveryCount;
  }

  /** Runs the message's handler and settles it; never throws (a failure to settle is logged). */
  async process(msg: JsMsg, message: ReceivedMessage): Promise<void> {
    const { logContext } = this.options;
    try {
      if (!logContext) return await this.runAndSettle(msg, message);
      const fields = { ...(this.options.contextFor?.(message) ?? {}), attempt: this.attemptOf(message) };
      await logContext.run(fields, () => this.runAndSettle(msg, message));
    } catch (error) {
      this.options.logger.error({ err: error }, 'Consumer runner failed to settle a message');
    }
  }

  /** Gives a delivered message back (nak), after `beforeNak`; a failing `beforeNak` is logged, not thrown. */
  async handBack(msg: JsMsg, message: ReceivedMessage, delayMs?: number): Promise<void> {
    try {
      await this.options.beforeNak?.(message);
    } catch (error) {
      this.options.logger.warn({ err: error }, `Could not record a handed-back delivery: ${describeError(error)}`);
    }
    msg.nak(delayMs);
  }

  private async runAndSettle(msg: JsMsg, message: ReceivedMessage): Promise<void> {
    const started = performance.now();
    const heartbeat = setInterval(() => msg.working(), Math.max(this.options.ackWaitMs / 3, 250));
    const parent = extractTraceContext(msg.headers);
    const span = this.tracer.startSpan(
      `process ${this.options.stream}/${this.options.consumer}`,
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
    const inSpan: Context = trace.setSpan(parent, span);
    let outcome: MessageOutcome;
    try {
      await context.with(inSpan, () => this.options.handler(message));
      msg.ack();
      outcome = 'acked';
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: describeError(failureOf(error)) });
      outcome = await context.with(inSpan, () => this.settleFailure(msg, message, error));
    } finally {
      clearInterval(heartbeat);
      span.end();
    }
    this.options.onOutcome?.(message, outcome, performance.now() - started);
  }

  private async settleFailure(msg: JsMsg, message: ReceivedMessage, error: unknown): Promise<'retried' | 'terminated'> {
    const { logger } = this.options;
    const policy = this.policyOf(message);
    const attempt = this.attemptOf(message);
    const failure = describeError(failureOf(error));
    const decision = decideRetry(policy, { attempt, error });
    if (decision.kind === 'retry') {
      logger.warn({ err: error, attempt, retryInMs: decision.delayMs }, `Attempt ${attempt} failed: ${failure}`);
      await this.handBack(msg, message, decision.delayMs);
      return 'retried';
    }
    try {
      await this.options.onGiveUp?.(message, error, decision.reason);
    } catch (giveUpError) {
      logger.error({ err: giveUpError }, 'Could not set the message aside; it will be retried');
      await this.handBack(msg, message, policy.delayAfter(1));
      return 'retried';
    }
    logger.error({ err: error, attempt, reason: decision.reason }, `Gave up after attempt ${attempt}: ${failure}`);
    msg.term(`${decision.reason}: ${failure}`.slice(0, 256));
    return 'terminated';
  }

  private policyOf(message: ReceivedMessage): RetryPolicy {
    const { retryPolicy } = this.options;
    return typeof retryPolicy === 'function' ? retryPolicy(message) : retryPolicy;
  }
}
