import { ALL_OUTBOUND_EVENTS_SUBJECT } from '@berth/contract';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import { ensureConsumer, startConsumer, type ConsumerRunner, type Messaging } from '@berth/messaging';
import { FAN_OUT_CONSUMER, OUTBOUND_EVENTS_STREAM } from '../names';
import { fanOutEvent, type FanOutDependencies } from './fan-out-event';
import { KeyedSerializer } from './keyed-serializer';

/** Options for {@link startFanOut}. */
export interface StartFanOutOptions {
  messaging: Messaging;
  fanOut: FanOutDependencies;
  logger: BerthLogger;
  logContext?: LogContextStore;
  /** Events fanned out at once. */
  concurrency: number;
  ackWaitMs: number;
}

/**
 * Provisions the durable consumer `dispatcher-fan-out` of `OUTBOUND_EVENTS` and runs {@link fanOutEvent} on it. The
 * events of a workspace with an ordered endpoint are fanned out one at a time in stream order, so that endpoint's
 * deliveries are queued in send order; other workspaces go side by side. A failed fan-out (MongoDB or NATS away) is
 * retried with backoff, up to a minute apart, for as long as it takes.
 */
export async function startFanOut(options: StartFanOutOptions): Promise<ConsumerRunner> {
  const { messaging, fanOut } = options;
  await ensureConsumer(messaging.jsm, {
    stream: OUTBOUND_EVENTS_STREAM,
    durable: FAN_OUT_CONSUMER,
    filterSubjects: [ALL_OUTBOUND_EVENTS_SUBJECT],
    ackWaitMs: options.ackWaitMs,
    maxAckPending: 1000,
    description: 'Fans outbound events out to endpoints',
  });
  const serializer = new KeyedSerializer();
  return startConsumer({
    js: messaging.js,
    stream: OUTBOUND_EVENTS_STREAM,
    consumer: FAN_OUT_CONSUMER,
    concurrency: options.concurrency,
    ackWaitMs: options.ackWaitMs,
    logger: options.logger,
    logContext: options.logContext,
    contextFor: (message) => ({ eventId: message.msgId }),
    retryPolicy: {
      maxAttempts: Number.MAX_SAFE_INTEGER,
      delayAfter: (failed) => Math.min(1000 * 2 ** (failed - 1), 60_000),
    },
    handler: (message) => {
      const workspaceId = message.subject.split('.')[2] ?? '';
      const run = () => fanOutEvent(fanOut, message);
      return fanOut.endpoints.ofWorkspace(workspaceId).some((endpoint) => endpoint.ordered)
        ? serializer.run(workspaceId, run)
        : run();
    },
  });
}
