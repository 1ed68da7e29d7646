import { ensureConsumer, startConsumer, type ConsumerRunner, type ReceivedMessage } from '@berth/messaging';
import type { DeliveryChecks } from './delivery-checks';
import type { JetStreamQueueWorkerOptions, JobMessages } from './job-messages';
import type { JobSettlement } from './job-settlement';

/** Which consumer a runner pulls, and how many jobs it may hold. */
export interface JobRunnerSpec {
  stream: string;
  filterSubject: string;
  durable: string;
  inHand: number;
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
 * Provisions one durable consumer of a queue and starts the messaging runner on it, with the job semantics as its
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
  await ensureConsumer(messaging.jsm, {
    stream,
    durable,
    filterSubjects: [spec.filterSubject],
    ackWaitMs: settings.ackWaitMs,
    maxAckPending: settings.maxAckPending,
    description: `Workers of queue ${queue}`,
  });
  return startConsumer({
    js: messaging.js,
    stream,
    consumer: durable,
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
  });
}
