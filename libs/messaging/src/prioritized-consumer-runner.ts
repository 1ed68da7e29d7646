import type { JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { ConsumerRunner, ConsumerRunnerOptions } from './consumer-runner-options';
import { describeError } from './errors';
import { HandlerSlots } from './handler-slots';
import { MessageProcessor } from './message-processor';
import { runnerProblem } from './pull-consumer-runner';
import { toReceivedMessage } from './received-message';
import { pullWaiting, type WaitingPullOptions } from './waiting-pull';

/** Options for {@link startPrioritizedConsumer}. */
export interface PrioritizedConsumerOptions extends Omit<ConsumerRunnerOptions, 'consumer'> {
  /** The connection the pull requests go on (the one `js` uses). */
  nc: NatsConnection;
  /** Durable pull consumers of `stream`, the most urgent first. */
  consumers: string[];
}

/** How long the loop waits after a failed pull before pulling again. */
const PULL_RETRY_MS = 1000;

/**
 * Runs the messages of several durable consumers of one stream in the order of the consumers: a slot that frees is
 * filled from the first consumer with a message waiting, and a message of a later consumer is taken only after
 * every earlier one was found empty. So across every process of a service, a message of an earlier consumer that
 * waits is started before any of a later one that still waits. Otherwise it is {@link startConsumer}: handlers,
 * heartbeats, ack, nak with the retry policy, `onGiveUp`, `beforeNak`, `stop`.
 *
 * A pull asks only for the free slots and for what waits now (`no_wait`, see `pullWaiting`), consumer after
 * consumer: no message waits in this process while a more urgent one waits on the server. When every consumer is
 * empty, one wait covers them all (a pull request of one message on each, ended at the first message): at that
 * moment a process may take up to one message per consumer, the only time it holds more than its free slots.
 */
export function startPrioritizedConsumer(options: PrioritizedConsumerOptions): ConsumerRunner {
  return new PrioritizedPullRunner(options);
}

class PrioritizedPullRunner implements ConsumerRunner {
  private readonly slots: HandlerSlots;
  private readonly processors = new Map<string, MessageProcessor>();
  private readonly pullExpiresMs: number;
  private readonly stopped = new AbortController();
  private failedPulls = 0;
  private lastPullError: string | undefined;
  private died: string | undefined;
  private readonly loop: Promise<void>;

  constructor(private readonly options: PrioritizedConsumerOptions) {
    if (options.consumers.length === 0) throw new Error('startPrioritizedConsumer: no consumer given');
    this.slots = new HandlerSlots(Math.max(1, Math.floor(options.concurrency)));
    for (const consumer of options.consumers)
      this.processors.set(consumer, new MessageProcessor({ ...options, consumer }));
    this.pullExpiresMs = Math.max(options.pullExpiresMs ?? 5000, 1000);
    this.loop = this.pullUntilStopped();
  }

  private get stopping(): boolean {
    return this.stopped.signal.aborted;
  }

  get inFlight(): number {
    return this.slots.inFlight;
  }

  get problem(): string | undefined {
    const { died, stopping, failedPulls, lastPullError } = this;
    return runnerProblem({ died, stopping, failedPulls, lastPullError });
  }

  get healthy(): boolean {
    return this.problem === undefined;
  }

  async stop(graceMs = 30000): Promise<void> {
    this.stopped.abort();
    this.slots.wake();
    await this.loop;
    if (!(await this.slots.drained(graceMs)))
      this.options.logger.warn(
        { inFlight: this.slots.inFlight },
        'Stopped with handlers still running; their messages will be delivered again',
      );
  }

  private async pullUntilStopped(): Promise<void> {
    const { stream } = this.options;
    try {
      while (!this.stopping) {
        await this.slots.waitForFree(() => this.stopping);
        if (this.stopping) break;
        const took = await this.pullInOrder();
        if (took === 0 && !this.stopping)
          await this.pull({
            requests: this.options.consumers.map((consumer) => ({ consumer, batch: 1 })),
            expiresMs: this.pullExpiresMs,
          });
      }
    } catch (error) {
      this.died = `its pull loop failed: ${describeError(error)}`;
      this.options.logger.error({ stream }, `Consumers of ${stream} stopped pulling: ${this.died}`);
    }
  }

  /** Fills the free slots from the consumers in order; the messages taken, or undefined after a failed pull. */
  private async pullInOrder(): Promise<number | undefined> {
    let took = 0;
    for (const consumer of this.options.consumers) {
      // A consumer that brought all it was asked for may have more: it is asked again before the next one.
      for (;;) {
        if (this.stopping || this.slots.full) return took;
        const batch = this.slots.pullSize();
        const pulled = await this.pull({ requests: [{ consumer, batch }] });
        if (pulled === undefined) return undefined;
        took += pulled;
        if (pulled < batch) break;
      }
    }
    if (took === 0) this.slots.sawNoMessages();
    return took;
  }

  /** One pull; a failure is logged, counted and waited after (undefined). */
  private async pull(request: Omit<WaitingPullOptions, 'stream'>): Promise<number | undefined> {
    const { stream } = this.options;
    try {
      const pulled = await pullWaiting(this.options.nc, { ...request, stream, signal: this.stopped.signal }, (msg) =>
        this.start(msg),
      );
      this.failedPulls = 0;
      return pulled;
    } catch (error) {
      if (this.stopping) return undefined;
      this.failedPulls += 1;
      this.lastPullError = describeError(error);
      this.options.logger.warn({ err: error, stream }, `Pull from ${stream} failed: ${this.lastPullError}`);
      await new Promise((resolve) => setTimeout(resolve, PULL_RETRY_MS));
      return undefined;
    }
  }

  /** Starts a pulled message's handler, or hands it back when the runner stops. */
  private start(msg: JsMsg): void {
    const processor =
      this.processors.get(msg.info.consumer) ?? new MessageProcessor({ ...this.options, consumer: msg.info.consumer });
    const message = toReceivedMessage(msg);
    if (this.stopping) {
      void processor.handBack(msg, message);
      return;
    }
    const weight = Math.max(0, this.options.weightOf?.(message) ?? 1);
    this.slots.take(weight);
    void processor.process(msg, message).finally(() => this.slots.release(weight));
  }
}
