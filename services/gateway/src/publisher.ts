import { SpanKind, SpanStatusCode, context, isSpanContextValid, trace, type Span } from '@opentelemetry/api';
import {
  createHeaders,
  describeError,
  isPermissionViolation,
  setProviderHeaders,
  encodeWebhookBatch,
  GroupCommitQueue,
  injectTraceContext,
  WEBHOOK_HEADERS,
  type GroupCommitOptions,
  type Messaging,
} from '@berth/messaging';
import { PubAckPipeline, type PubAckResult } from './pub-ack-pipeline';
import { NATS_HEADERS, webhookSubject } from '@berth/contract';

/** One verified, handled event, ready to be stored. */
export interface InboundWebhookEvent {
  /** Provider name (`stripe`, `clerk`, or a configured one). */
  readonly provider: string;
  /** The provider's id for the event, the same on every retry; with the provider it makes the `Nats-Msg-Id`. */
  readonly eventId: string;
  /** The provider's event type, as sent (it is sanitized for the subject only). */
  readonly type: string;
  /** When the gateway received it, ISO 8601. */
  readonly receivedAt: string;
  /** The bytes to store: the raw request body, or one batch item's JSON. */
  readonly data: Uint8Array;
  /** The provider's request headers kept for the handler (the scheme's allow-list, lower-case names). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** What JetStream said: newly stored, or already stored inside the duplicate window. */
export type PublishOutcome = 'stored' | 'duplicate';

/**
 * Stores verified webhook events durably. The stream layout (which stream, which subject) is the publisher's
 * business, so it can change (sharding across streams, say) without touching the HTTP side.
 */
export interface WebhookPublisher {
  /**
   * Resolves once the event is durably stored (or recognised as a duplicate).
   * @throws WebhookPublishError when it cannot be stored now (NATS down, timeout, stream full); the caller answers
   * 503 so the provider retries.
   */
  publish(event: InboundWebhookEvent): Promise<PublishOutcome>;
  /** True when events can be published now: connected, and the stream(s) exist. */
  isReady(): Promise<boolean>;
  /** Stops publishing; publishes still waiting for their PubAck fail. */
  close(): void;
}

/** An event could not be stored now; retrying later may succeed. */
export class WebhookPublishError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WebhookPublishError';
  }
}

/** Options for {@link JetStreamWebhookPublisher}. */
export interface JetStreamWebhookPublisherOptions {
  readonly messaging: Pick<Messaging, 'nc' | 'jsm' | 'isConnected'>;
  /** The stream holding `webhooks.>` (`WEBHOOKS`); also sent as `Nats-Expected-Stream`. */
  readonly streamName: string;
  /** Longest wait for a PubAck, in ms; bounds the wait while the client is disconnected too. */
  readonly timeoutMs: number;
  /** Group commit per subject; `{ maxItemsPerMessage: 1 }` stores every event as its own message. */
  readonly batching?: GroupCommitOptions;
  /**
   * A copy of an event JetStream already holds, arriving this long or more after the first was stored, is taken
   * for a resend from the provider's dashboard and stored marked `Berth-Resent` (see `storeResentCopy`); earlier
   * ones are a provider's retries and are dropped as duplicates. Unset: never stored.
   */
  readonly resendCopyAfterMs?: number;
}

/** One event waiting in the group commit, with its subject and producer span. */
interface QueuedEvent {
  readonly event: InboundWebhookEvent;
  readonly subject: string;
  readonly msgId: string;
  readonly span: Span;
}

const tracer = trace.getTracer('berth-gateway');

/**
 * Publishes events to `webhooks.<provider>.<type>` in one JetStream stream, with `Nats-Expected-Stream`, the
 * `Berth-*` headers and the W3C trace context of a producer span per event.
 *
 * Group commit: with `sync_interval: always` nats-server stores (and fsyncs) the messages of a stream one by one, a
 * few thousand a second. So while a message of a subject awaits its PubAck, the events arriving for that subject
 * gather, and leave together as one batch message (`Berth-Batch-Size`; the bodies stored byte for byte, see `@berth/messaging`). Every request is
 * still answered only once the message holding its event is stored. An event alone is stored as before: the raw
 * body as the data and `Nats-Msg-Id: <provider>:<eventId>`, so JetStream drops a resent copy inside the duplicate
 * window. A batch carries no `Nats-Msg-Id`: nothing ever sends one twice, and its id would only sit in the stream's
 * 24 h duplicate window, in nats-server's memory. A provider's resend that lands in a batch is caught by the inbox,
 * whose row per `<provider>:<eventId>` is the guarantee. The same event sent again while its first copy is still
 * being stored waits for that copy instead of being stored twice.
 *
 * Events are grouped by subject and exact type: types that sanitise to one subject (`order paid`, `order*paid`)
 * never share a message, so each keeps its own `Berth-Event-Type`.
 *
 * Every event is answered within `timeoutMs` of its publish, however long it waited behind its subject's message
 * in flight, and a subject holds at most `batching.maxPendingItemsPerKey` events and `maxPendingBytesPerKey` bytes
 * waiting: past them a publish fails at once (the provider gets its 503 and retries).
 *
 * Messages are pipelined on the one connection through a {@link PubAckPipeline}. While the connection is down a
 * publish fails at once instead of queueing in the client's reconnect buffer, so the provider gets its 503
 * immediately.
 */
export class JetStreamWebhookPublisher implements WebhookPublisher {
  private closed = false;
  private readonly pipeline: PubAckPipeline;
  private readonly groupCommit: GroupCommitQueue<QueuedEvent, PubAckResult>;
  /** Events queued or being stored, by `Nats-Msg-Id`: a copy arriving meanwhile waits for the first. */
  private readonly storing = new Map<string, Promise<PublishOutcome>>();

  constructor(private readonly options: JetStreamWebhookPublisherOptions) {
    this.pipeline = new PubAckPipeline(options.messaging.nc, options.timeoutMs, options.streamName);
    this.groupCommit = new GroupCommitQueue((_key, events, deadline) => this.store(events, deadline), {
      ...options.batching,
      maxWaitMs: options.timeoutMs,
    });
  }

  publish(event: InboundWebhookEvent): Promise<PublishOutcome> {
    if (!this.options.messaging.isConnected())
      return Promise.reject(new WebhookPublishError('NATS connection is down'));
    const msgId = `${event.provider}:${event.eventId}`;
    const earlier = this.storing.get(msgId);
    if (earlier !== undefined) return earlier.then(() => 'duplicate' as const);
    const stored = this.enqueue(event, msgId);
    this.storing.set(msgId, stored);
    return stored;
  }

  /** Stores one event through the group commit, under its producer span; forgets it in `storing` once settled. */
  private async enqueue(event: InboundWebhookEvent, msgId: string): Promise<PublishOutcome> {
    const subject = webhookSubject(event.provider, event.type);
    const span = tracer.startSpan(`publish ${subject}`, {
      kind: SpanKind.PRODUCER,
      attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject, 'messaging.message.id': msgId },
    });
    try {
      const ack = await this.groupCommit.enqueue(
        `${subject}\u0000${event.type}`,
        { event, subject, msgId, span },
        event.data.length,
      );
      if (!ack.duplicate) return 'stored';
      span.setAttribute('messaging.nats.duplicate', true);
      if (await this.isLateCopy(ack)) await this.storeResentCopy(subject, event, msgId);
      return 'duplicate';
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      if (error instanceof WebhookPublishError) throw error;
      throw new WebhookPublishError(`publish to JetStream failed: ${describeError(error)}`, { cause: error });
    } finally {
      this.storing.delete(msgId);
      span.end();
    }
  }

  /**
   * Whether the first copy of a duplicate was stored `resendCopyAfterMs` ago or more, or is gone, or cannot be read
   * now (a copy too many is harmless: the consumer acks it at once unless the inbox set the event aside).
   * @throws WebhookPublishError when the gateway's NATS user may not read the stream
   * (`$JS.API.STREAM.MSG.GET.<stream>`, deploy/nats/auth.conf): a deployment error, answered 503 and logged, never
   * taken for a late copy (every retry would be stored again).
   */
  private async isLateCopy(ack: PubAckResult): Promise<boolean> {
    const after = this.options.resendCopyAfterMs;
    if (after === undefined) return false;
    const stream = ack.stream || this.options.streamName;
    try {
      const first = await this.options.messaging.jsm.streams.getMessage(stream, { seq: ack.seq });
      return first === null || Date.now() - first.time.getTime() >= after;
    } catch (error) {
      if (isPermissionViolation(error))
        throw new WebhookPublishError(
          `the gateway's NATS user may not read ${stream} to tell a retry from a late resend (${describeError(error)}): allow $JS.API.STREAM.MSG.GET.${stream} (deploy/nats/auth.conf)`,
          { cause: error },
        );
      return true;
    }
  }

  /**
   * A provider sent again, late, an event JetStream still holds (a resend from its dashboard): stores one copy
   * marked `Berth-Resent` under `<provider>:<eventId>:resent:<receivedAt>`, so a resend of an event the inbox set
   * aside reaches the consumer, which reopens it; for any other event the consumer acks the copy at once.
   */
  private storeResentCopy(subject: string, event: InboundWebhookEvent, msgId: string): Promise<PubAckResult> {
    const headers = createHeaders();
    headers.set(NATS_HEADERS.expectedStream, this.options.streamName);
    headers.set(NATS_HEADERS.msgId, `${msgId}:resent:${event.receivedAt}`);
    headers.set(WEBHOOK_HEADERS.provider, event.provider);
    headers.set(WEBHOOK_HEADERS.eventId, event.eventId);
    headers.set(WEBHOOK_HEADERS.eventType, event.type);
    headers.set(WEBHOOK_HEADERS.receivedAt, event.receivedAt);
    headers.set(WEBHOOK_HEADERS.resent, 'true');
    setProviderHeaders(headers, event.headers);
    return this.pipeline.publish(subject, event.data, headers, Date.now() + this.options.timeoutMs);
  }

  /** Stores one message of events of one subject and type: the event itself when alone, else a batch of them. */
  private store(queued: QueuedEvent[], deadline: number): Promise<PubAckResult> {
    if (this.closed) return Promise.reject(new WebhookPublishError('publisher closed'));
    const { subject } = queued[0];
    const first = queued[0].event;
    const headers = createHeaders();
    headers.set(NATS_HEADERS.expectedStream, this.options.streamName);
    headers.set(WEBHOOK_HEADERS.provider, first.provider);
    headers.set(WEBHOOK_HEADERS.eventType, first.type);
    headers.set(WEBHOOK_HEADERS.receivedAt, first.receivedAt);
    if (queued.length === 1) {
      injectTraceContext(headers, trace.setSpan(context.active(), queued[0].span));
      headers.set(NATS_HEADERS.msgId, queued[0].msgId);
      headers.set(WEBHOOK_HEADERS.eventId, first.eventId);
      setProviderHeaders(headers, first.headers);
      return this.pipeline.publish(subject, first.data, headers, deadline);
    }
    headers.set(WEBHOOK_HEADERS.batchSize, String(queued.length));
    const items = queued.map(({ event, span }) => {
      const item = {
        eventId: event.eventId,
        receivedAt: event.receivedAt,
        payload: event.data,
        headers: event.headers,
      };
      // Without a tracer provider every span is a no-op one with an invalid context: there is nothing to propagate.
      if (!isSpanContextValid(span.spanContext())) return item;
      const carrier = injectTraceContext(createHeaders(), trace.setSpan(context.active(), span));
      return {
        ...item,
        traceparent: carrier.get('traceparent') || undefined,
        tracestate: carrier.get('tracestate') || undefined,
      };
    });
    return this.pipeline.publish(subject, encodeWebhookBatch(items), headers, deadline);
  }

  async isReady(): Promise<boolean> {
    if (!this.options.messaging.isConnected()) return false;
    try {
      await this.options.messaging.jsm.streams.info(this.options.streamName);
      return true;
    } catch {
      return false;
    }
  }

  close(): void {
    this.closed = true;
    this.pipeline.close();
  }
}
