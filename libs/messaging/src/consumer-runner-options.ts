import type { JetStreamClient } from '@nats-io/jetstream';
import type { BerthLogger, LogContext, LogContextStore } from '@berth/logger';
import type { RetryPolicy } from './backoff';
import type { ReceivedMessage } from './received-message';
import type { GiveUpReason } from './retry-decision';

/** Options for `startConsumer`. */
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

/** A running consumer. */
export interface ConsumerRunner {
  /** Handlers running now. */
  readonly inFlight: number;
  /**
   * True while the runner pulls: false once it stopped, when its pull loop ended by itself (it then never pulls
   * again), and while its last `UNHEALTHY_AFTER_FAILED_PULLS` pulls failed (consumer deleted, stream gone,
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
