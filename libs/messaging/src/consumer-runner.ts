import type { ConsumerRunner, ConsumerRunnerOptions } from './consumer-runner-options';
import { PullConsumerRunner } from './pull-consumer-runner';

export type { ConsumerRunner, ConsumerRunnerOptions } from './consumer-runner-options';
export type { GiveUpReason } from './retry-decision';
export { UNHEALTHY_AFTER_FAILED_PULLS } from './pull-consumer-runner';

/**
 * Pulls from a durable consumer and runs a handler per message with bounded concurrency: ack after success; on
 * failure what `decideRetry` says: nak with the delay, or give up (`onGiveUp`, then terminate) on an
 * `UnrecoverableError` or the last attempt. Long handlers keep their lease with `working()`.
 *
 * Each pull asks for as many messages as there are free slots (never more, and fewer when messages carry several
 * units of work, see `weightOf`), so every message this process holds is running and heartbeating; acks are sent
 * without waiting for the server's confirmation, so a slot is free as soon as its handler resolves. The state lives
 * in a {@link PullConsumerRunner} (pull loop and health), its `HandlerSlots` and its `MessageProcessor` (one
 * message, run and settled).
 */
export async function startConsumer(options: ConsumerRunnerOptions): Promise<ConsumerRunner> {
  const consumer = await options.js.consumers.get(options.stream, options.consumer);
  return new PullConsumerRunner(consumer, options);
}
