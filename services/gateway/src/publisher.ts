import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { createHeaders, describeError, injectTraceContext, type Messaging } from '@berth/messaging';
import { PubAckPipeline } from './pub-ack-pipeline';
import { webhookSubject } from './subject';

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
  readonly messaging: Pick<Messaging, 'nc' | 'jsm'>;
  /** The stream holding `webhooks.>` (`WEBHOOKS`); also sent as `Nats-Expected-Stream`. */
  readonly streamName: string;
  /** Longest wait for a PubAck, in ms; bounds the wait while the client is disconnected too. */
  readonly timeoutMs: number;
}

const tracer = trace.getTracer('berth-gateway');

/**
 * Publishes each event to `webhooks.<provider>.<type>` in one JetStream stream, with
 * `Nats-Msg-Id: <provider>:<eventId>` (JetStream drops a second copy inside the stream's duplicate window),
 * `Nats-Expected-Stream`, the `Berth-*` headers and the W3C trace context of a producer span. The data is stored
 * as given (the raw request body): nothing is re-serialised.
 *
 * Publishes are pipelined on the one connection through a {@link PubAckPipeline}: concurrent requests do not wait
 * for each other, only for their own PubAck. While the connection is down a publish fails at once instead of
 * queueing in the client's reconnect buffer, so the provider gets its 503 immediately.
 */
export class JetStreamWebhookPublisher implements WebhookPublisher {
  private connected: boolean;
  private readonly pipeline: PubAckPipeline;

  constructor(private readonly options: JetStreamWebhookPublisherOptions) {
    this.connected = !options.messaging.nc.isClosed();
    this.pipeline = new PubAckPipeline(options.messaging.nc, options.timeoutMs);
    void this.followConnectionStatus();
  }

  async publish(event: InboundWebhookEvent): Promise<PublishOutcome> {
    if (!this.connected) throw new WebhookPublishError('NATS connection is down');
    const subject = webhookSubject(event.provider, event.type);
    const msgId = `${event.provider}:${event.eventId}`;
    const span = tracer.startSpan(`publish ${subject}`, {
      kind: SpanKind.PRODUCER,
      attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject, 'messaging.message.id': msgId },
    });
    const headers = injectTraceContext(createHeaders(), trace.setSpan(context.active(), span));
    headers.set('Nats-Msg-Id', msgId);
    headers.set('Nats-Expected-Stream', this.options.streamName);
    headers.set('Berth-Provider', event.provider);
    headers.set('Berth-Event-Id', event.eventId);
    headers.set('Berth-Event-Type', event.type);
    headers.set('Berth-Received-At', event.receivedAt);
    try {
      const ack = await this.pipeline.publish(subject, event.data, headers);
      if (ack.duplicate) span.setAttribute('messaging.nats.duplicate', true);
      return ack.duplicate ? 'duplicate' : 'stored';
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw new WebhookPublishError(`publish to JetStream failed: ${describeError(error)}`, { cause: error });
    } finally {
      span.end();
    }
  }

  async isReady(): Promise<boolean> {
    if (!this.connected || this.options.messaging.nc.isClosed()) return false;
    try {
      await this.options.messaging.jsm.streams.info(this.options.streamName);
      return true;
    } catch {
      return false;
    }
  }

  close(): void {
    this.pipeline.close();
  }

  private async followConnectionStatus(): Promise<void> {
    for await (const status of this.options.messaging.nc.status()) {
      if (status.type === 'disconnect') this.connected = false;
      else if (status.type === 'reconnect') this.connected = true;
    }
    this.connected = false;
  }
}
