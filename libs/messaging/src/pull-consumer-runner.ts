import type { Consumer, ConsumerMessages } from '@nats-io/jetstream';
import type { ConsumerRunner, ConsumerRunnerOptions } from './consumer-runner-options';
import { describeError } from './errors';
import { HandlerSlots } from './handler-slots';
import { MessageProcessor } from './message-processor';
import { toReceivedMessage } from './received-message';

/** Pulls failing in a row after which a runner no longer counts as healthy (about 3 s: a failed pull waits 1 s). */
export const UNHEALTHY_AFTER_FAILED_PULLS = 3;

/**
 * Why a consumer runner is unhealthy, or undefined when it is healthy: it died, it is stopping, or its last
 * {@link UNHEALTHY_AFTER_FAILED_PULLS} pulls failed. Both runners (plain and prioritized) decide it here.
 */
export function runnerProblem(state: {
  died?: string;
  stopping: boolean;
  failedPulls: number;
  lastPullError?: string;
}): string | undefined {
  if (state.died) return state.died;
  if (state.stopping) return 'stopped';
  if (state.failedPulls >= UNHEALTHY_AFTER_FAILED_PULLS)
    return `${state.failedPulls} pulls in a row failed, last: ${state.lastPullError}`;
  return undefined;
}

/** How long the loop waits after a failed pull before pulling again. */
const PULL_RETRY_MS = 1000;

/**
 * The state behind `startConsumer`: a pull loop that asks for as many messages as there are free
 * {@link HandlerSlots}, hands each to the {@link MessageProcessor} without waiting for it, and counts failed pulls
 * for {@link healthy}; `stop` ends the loop and waits for the running handlers.
 */
export class PullConsumerRunner implements ConsumerRunner {
  private readonly slots: HandlerSlots;
  private readonly processor: MessageProcessor;
  private readonly pullExpiresMs: number;
  private stopping = false;
  private failedPulls = 0;
  private lastPullError: string | undefined;
  /** Why the pull loop ended by itself; it never pulls again. */
  private died: string | undefined;
  private currentPull: ConsumerMessages | undefined;
  private readonly loop: Promise<void>;

  constructor(
    private readonly consumer: Consumer,
    private readonly options: ConsumerRunnerOptions,
  ) {
    this.slots = new HandlerSlots(Math.max(1, Math.floor(options.concurrency)));
    this.processor = new MessageProcessor(options);
    this.pullExpiresMs = Math.max(options.pullExpiresMs ?? 5000, 1000);
    this.loop = this.pullUntilStopped();
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
    this.stopping = true;
    this.slots.wake();
    this.currentPull?.stop();
    await this.loop;
    if (!(await this.slots.drained(graceMs)))
      this.options.logger.warn(
        { inFlight: this.slots.inFlight },
        'Stopped with handlers still running; their messages will be delivered again',
      );
  }

  /** Pulls until stopped; records (and logs) why it ended if it ended by itself. */
  private async pullUntilStopped(): Promise<void> {
    const { stream, consumer } = this.options;
    try {
      while (!this.stopping) {
        await this.slots.waitForFree(() => this.stopping);
        if (this.stopping || !(await this.pullOnce())) break;
      }
      if (!this.stopping) this.died = 'its pull loop ended';
    } catch (error) {
      this.died = `its pull loop failed: ${describeError(error)}`;
    }
    if (this.died)
      this.options.logger.error({ stream, consumer }, `Consumer ${stream}/${consumer} stopped pulling: ${this.died}`);
  }

  /**
   * One pull: starts a handler for each message it brings (or hands it back when stopping). A failed pull is
   * logged and counted, and waited after; resolves false when the runner stopped meanwhile.
   */
  private async pullOnce(): Promise<boolean> {
    try {
      const pull = await this.consumer.fetch({ max_messages: this.slots.pullSize(), expires: this.pullExpiresMs });
      this.currentPull = pull;
      if (this.stopping) pull.stop();
      let received = 0;
      for await (const msg of pull) {
        received += 1;
        const message = toReceivedMessage(msg);
        if (this.stopping) {
          await this.processor.handBack(msg, message);
          continue;
        }
        const weight = Math.max(0, this.options.weightOf?.(message) ?? 1);
        this.slots.take(weight);
        void this.processor.process(msg, message).finally(() => this.slots.release(weight));
      }
      if (received === 0) this.slots.sawNoMessages();
      this.failedPulls = 0;
    } catch (error) {
      if (this.stopping) return false;
      this.failedPulls += 1;
      this.lastPullError = describeError(error);
      const { stream, consumer } = this.options;
      this.options.logger.warn(
        { err: error, stream, consumer },
        `Pull from ${stream}/${consumer} failed: ${this.lastPullError}`,
      );
      await new Promise((resolve) => setTimeout(resolve, PULL_RETRY_MS));
    } finally {
      this.currentPull = undefined;
    }
    return true;
  }
}
