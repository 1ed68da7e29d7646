import { createInbox, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/nats-core';

/** A JetStream PubAck: where the message was stored, and whether it was a duplicate of an earlier one. */
export interface PubAckResult {
  readonly stream: string;
  readonly seq: number;
  readonly duplicate: boolean;
}

/**
 * JetStream refused the message (stream full, wrong expected stream...), no stream listens on the subject, or the
 * answer was not a PubAck of the expected stream with a sequence (anything else may answer a reply subject).
 */
export class PubAckError extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
    this.name = 'PubAckError';
  }
}

/** No PubAck arrived in time. */
export class PubAckTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`no PubAck within ${timeoutMs} ms`);
    this.name = 'PubAckTimeoutError';
  }
}

interface PendingAck {
  readonly resolve: (ack: PubAckResult) => void;
  readonly reject: (error: Error) => void;
  readonly deadline: number;
}

/** How often the pipeline looks for PubAcks that are overdue; the timeout is honoured to within this. */
const EXPIRY_SWEEP_MS = 50;

/**
 * Publishes to JetStream the way the Go client's `PublishAsync` does: every message carries a reply subject under
 * one inbox the pipeline subscribes to once, and the PubAck is matched to its waiting publish by the reply token.
 *
 * `js.publish()` does the same work through a request per message, which on nats.js 3 costs three `Error` objects
 * with stack traces, a timer and two promises per message, most of a publish's CPU (README design notes). Here a
 * publish costs one promise and a map entry; overdue PubAcks are swept by one timer.
 *
 * Publishes are pipelined: many can wait for their PubAck at once on the one connection.
 */
export class PubAckPipeline {
  private readonly inboxPrefix: string;
  private readonly pending = new Map<string, PendingAck>();
  private readonly subscription: Subscription;
  private readonly sweepTimer: NodeJS.Timeout;
  private nextToken = 0;

  /**
   * @param expectedStream the only stream whose PubAck counts as stored; the messages also carry it as
   * `Nats-Expected-Stream`, so JetStream itself refuses to store them elsewhere.
   */
  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs: number,
    private readonly expectedStream: string,
  ) {
    this.inboxPrefix = `${createInbox()}.`;
    this.subscription = nc.subscribe(`${this.inboxPrefix}*`, { callback: (error, msg) => this.settle(error, msg) });
    this.sweepTimer = setInterval(() => this.expireOverdue(), EXPIRY_SWEEP_MS);
    this.sweepTimer.unref();
  }

  /**
   * Publishes `data` on `subject` and resolves with its PubAck.
   * @param deadline `performance.now()` time after which to give up, if sooner than the timeout from now (the
   * group commit passes its oldest event's deadline, so an event that waited for its message waits no longer).
   * @throws PubAckError when JetStream refuses it, PubAckTimeoutError when no answer comes in time, or the
   * client's error when the connection is closed.
   */
  publish(
    subject: string,
    data: Uint8Array,
    headers: MsgHdrs,
    deadline = Number.POSITIVE_INFINITY,
  ): Promise<PubAckResult> {
    const token = (this.nextToken++).toString(36);
    return new Promise<PubAckResult>((resolve, reject) => {
      this.pending.set(token, { resolve, reject, deadline: Math.min(deadline, performance.now() + this.timeoutMs) });
      try {
        this.nc.publish(subject, data, { reply: this.inboxPrefix + token, headers });
      } catch (error) {
        this.pending.delete(token);
        reject(error as Error);
      }
    });
  }

  /** PubAcks still awaited. */
  get waiting(): number {
    return this.pending.size;
  }

  /** Stops listening for PubAcks and fails every publish still waiting for one. */
  close(): void {
    clearInterval(this.sweepTimer);
    this.subscription.unsubscribe();
    const error = new PubAckError('publisher closed');
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }

  private settle(error: Error | null, msg: Msg): void {
    if (error !== null) return; // the subscription itself failed (connection closed): waiting publishes time out
    const token = msg.subject.slice(this.inboxPrefix.length);
    const waiting = this.pending.get(token);
    if (waiting === undefined) return; // already timed out
    this.pending.delete(token);
    if (msg.data.length === 0) {
      const status = msg.headers?.code;
      waiting.reject(
        new PubAckError(
          status === 503 ? 'no JetStream stream captures the subject' : `empty PubAck (status ${status})`,
          status,
        ),
      );
      return;
    }
    try {
      const answer = JSON.parse(msg.string()) as {
        stream?: unknown;
        seq?: unknown;
        duplicate?: unknown;
        error?: { code?: number; err_code?: number; description?: string };
      } | null;
      if (answer?.error)
        waiting.reject(
          new PubAckError(answer.error.description ?? 'JetStream error', answer.error.err_code ?? answer.error.code),
        );
      else if (
        answer?.stream !== this.expectedStream ||
        !Number.isSafeInteger(answer.seq) ||
        (answer.seq as number) < 1
      ) {
        waiting.reject(new PubAckError(`not a PubAck of stream ${this.expectedStream} with a sequence`));
      } else
        waiting.resolve({ stream: answer.stream, seq: answer.seq as number, duplicate: answer.duplicate === true });
    } catch (parseError) {
      waiting.reject(parseError as Error);
    }
  }

  /** Deadlines differ per message (see `publish`), so every waiting entry is looked at; they are few (in flight). */
  private expireOverdue(): void {
    if (this.pending.size === 0) return;
    const now = performance.now();
    for (const [token, waiting] of this.pending) {
      if (waiting.deadline > now) continue;
      this.pending.delete(token);
      waiting.reject(new PubAckTimeoutError(this.timeoutMs));
    }
  }
}
