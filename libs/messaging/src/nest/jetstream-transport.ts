import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import type { BerthLogger, LogContext, LogContextStore } from '@berth/logger';
import type { RetryPolicy } from '../backoff';
import { ensureConsumer } from '../consumers';
import { startConsumer, type ConsumerRunner, type GiveUpReason } from '../consumer-runner';
import type { Messaging } from '../connection';
import { UnrecoverableError } from '../errors';
import type { ReceivedMessage } from '../received-message';
import { subjectMatches } from '../subject-match';
import { JetStreamContext } from './jetstream-context';

/** One durable consumer the transport runs; each message goes to the `@EventPattern` matching its subject. */
export interface TransportConsumerOptions {
  stream: string;
  durable: string;
  filterSubjects: string[];
  concurrency: number;
  ackWaitMs: number;
  maxAckPending?: number;
  retryPolicy: RetryPolicy;
  contextFor?: (message: ReceivedMessage) => LogContext;
  /**
   * The `@Payload()` a handler receives; the body parsed as JSON by default. Handlers that read the message from the
   * context (`@Ctx()`), as the webhook consumers do for batch messages, which are not JSON, pass `() => undefined`.
   */
  payloadOf?: (message: ReceivedMessage) => unknown;
  /** Units of work a message carries (the events of a batch); see `ConsumerRunnerOptions.weightOf`. */
  weightOf?: (message: ReceivedMessage) => number;
  onGiveUp?: (message: ReceivedMessage, error: unknown, reason: GiveUpReason) => Promise<void>;
  onOutcome?: (message: ReceivedMessage, outcome: 'acked' | 'retried' | 'terminated', durationMs: number) => void;
}

/** Options for {@link JetStreamTransport}. */
export interface JetStreamTransportOptions {
  messaging: Messaging;
  consumers: TransportConsumerOptions[];
  logger: BerthLogger;
  logContext?: LogContextStore;
  /** How long `close()` waits for running handlers (SIGTERM grace). */
  shutdownGraceMs?: number;
}

/**
 * A NestJS microservice transport over JetStream durable pull consumers. Handlers are declared with
 * `@EventPattern('<subject pattern>')`; one resolves → the message is acked; one throws → it is retried with the
 * consumer's backoff, or given up on after `UnrecoverableError` or its last attempt.
 */
export class JetStreamTransport extends Server implements CustomTransportStrategy {
  private runners: ConsumerRunner[] = [];

  constructor(private readonly options: JetStreamTransportOptions) {
    super();
  }

  /** Provisions the consumers and starts pulling. */
  async listen(callback: (...optionalParams: unknown[]) => unknown): Promise<void> {
    try {
      for (const consumer of this.options.consumers) {
        await ensureConsumer(this.options.messaging.jsm, {
          stream: consumer.stream,
          durable: consumer.durable,
          filterSubjects: consumer.filterSubjects,
          ackWaitMs: consumer.ackWaitMs,
          maxAckPending: consumer.maxAckPending,
        });
        this.runners.push(
          await startConsumer({
            js: this.options.messaging.js,
            stream: consumer.stream,
            consumer: consumer.durable,
            concurrency: consumer.concurrency,
            ackWaitMs: consumer.ackWaitMs,
            retryPolicy: consumer.retryPolicy,
            logger: this.options.logger,
            logContext: this.options.logContext,
            contextFor: consumer.contextFor,
            weightOf: consumer.weightOf,
            onGiveUp: consumer.onGiveUp,
            onOutcome: consumer.onOutcome,
            handler: (message) => this.dispatch(message, consumer.payloadOf ?? parseJsonPayload),
          }),
        );
      }
      callback();
    } catch (error) {
      callback(error);
    }
  }

  /** Stops pulling and waits for running handlers, up to the grace period. */
  async close(): Promise<void> {
    const runners = this.runners;
    this.runners = [];
    await Promise.all(runners.map((runner) => runner.stop(this.options.shutdownGraceMs)));
  }

  /**
   * True once every consumer is pulling and while each stays healthy ({@link ConsumerRunner.healthy}); a
   * service's readiness includes it, so a process whose consumer died is taken out of rotation and shows in
   * `berth status`.
   */
  get healthy(): boolean {
    return this.runners.length === this.options.consumers.length && this.runners.every((runner) => runner.healthy);
  }

  /** Handlers running now, across consumers. */
  get inFlight(): number {
    return this.runners.reduce((sum, runner) => sum + runner.inFlight, 0);
  }

  on(): never {
    throw new Error('JetStreamTransport does not emit events');
  }

  unwrap<T>(): T {
    return this.options.messaging as T;
  }

  private async dispatch(message: ReceivedMessage, payloadOf: (message: ReceivedMessage) => unknown): Promise<void> {
    const pattern = [...this.messageHandlers.keys()].find((candidate) => subjectMatches(candidate, message.subject));
    const handler = pattern ? this.messageHandlers.get(pattern) : undefined;
    if (!handler) throw new UnrecoverableError(`No handler for subject ${message.subject}`);
    const result = await handler(payloadOf(message), new JetStreamContext([message]));
    await lastValueFrom(this.transformToObservable(result), { defaultValue: undefined });
  }
}

function parseJsonPayload(message: ReceivedMessage): unknown {
  return message.json();
}
