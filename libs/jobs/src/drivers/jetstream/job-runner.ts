import {
  ensureConsumer,
  startConsumer,
  startPrioritizedConsumer,
  type ConsumerRunner,
  type ConsumerRunnerOptions,
  type ReceivedMessage,
} from '@berth/messaging';
import type { DeliveryChecks } from './delivery-checks';
import type { JetStreamQueueWorkerOptions, JobMessages } from './job-messages';
import type { JobSettlement } from './job-settlement';

/** Which consumer a runner pulls, and how many jobs it may hold. */
export interface JobRunnerSpec {
  stream: string;
  filterSubject: string;
  durable: string;
  inHand: number;
  /**
   * Less urgent consumers of the same stream (the priority bands, most urgent first), pulled after `durable` in
   * that order: a job of one is taken only once every consumer before it had none waiting.
   */
  then?: { durable: string; filterSubject: string }[];
}

/** What a runner calls back into its worker for. */
export interface JobRunnerHooks {
  messages: JobMessages;
  deliveries: DeliveryChecks;
  settlement: JobSettlement;
  handle(message: ReceivedMessage): Promise<void>;
  observe(message: ReceivedMessage, outcome: 'acked' | 'retried' | 'terminated', durationMs: number): void;
}

/**
 * Provisions one durable consumer of a queue (or several, pulled in order of urgency) and starts the messaging
 * runner on it, with the job semantics as its
 * callbacks: log fields and attempt from the message, the job's retry policy, dead letters on giving up, the
 * delivery ledger before a nak and after a settlement.
 */
export async function startJobRunner(
  options: JetStreamQueueWorkerOptions,
  spec: JobRunnerSpec,
  hooks: JobRunnerHooks,
): Promise<ConsumerRunner> {
  const { messaging, queue, settings } = options;
  const { stream, durable } = spec;
  const consumers = [{ durable, filterSubject: spec.filterSubject }, ...(spec.then ?? [])];
  for (const consumer of consumers)
    await ensureConsumer(messaging.jsm, {
      stream,
      durable: consumer.durable,
      filterSubjects: [consumer.filterSubject],
      ackWaitMs: settings.ackWaitMs,
      maxAckPending: settings.maxAckPending,
      description: `Workers of queue ${queue}`,
    });
  const runnerOptions: Omit<ConsumerRunnerOptions, 'consumer'> = {
    js: messaging.js,
    stream,
    concurrency: spec.inHand,
    ackWaitMs: settings.ackWaitMs,
    logger: options.logger,
    logContext: options.logContext,
    contextFor: (message) => hooks.messages.contextFor(message),
    attemptOf: (message) => hooks.messages.attemptOf(message),
    weightOf: (message) => hooks.messages.weightOf(message, stream),
    retryPolicy: (message) => hooks.messages.retryPolicyOf(message),
    handler: (message) => hooks.handle(message),
    onGiveUp: (message, error, reason) => hooks.settlement.giveUp(message, error, reason),
    beforeNak: (message) => hooks.deliveries.recordEnded(message, stream),
    onOutcome: (message, outcome, durationMs) => {
      if (outcome !== 'retried') hooks.deliveries.forgetDeliveries(message, stream);
      hooks.observe(message, outcome, durationMs);
    },
  };
  if (consumers.length === 1) return startConsumer({ ...runnerOptions, consumer: durable });
  return startPrioritizedConsumer({
    ...runnerOptions,
    nc: messaging.nc,
    consumers: consumers.map((consumer) => consumer.durable),
  });
}
