import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { createHeaders, injectTraceContext } from './trace-headers';

/** One message to publish. */
export interface OutgoingMessage {
  subject: string;
  data: Uint8Array | string;
  /** `Nats-Msg-Id`: JetStream drops a second message with this id inside the stream's duplicate window. */
  msgId?: string;
  headers?: Record<string, string>;
  /** Stream the subject must land in (`Nats-Expected-Stream`), so a misrouted subject fails loudly. */
  expectedStream?: string;
}

/** What JetStream answered: stored (or recognised as a duplicate) at a stream sequence. */
export interface PublishResult {
  stream: string;
  seq: number;
  duplicate: boolean;
}

/**
 * Publishes one message to JetStream and resolves with its PubAck, i.e. once the server has stored it (fsynced,
 * with `sync_interval: always`). Adds the active trace context to the headers.
 */
export async function publishMessage(
  js: JetStreamClient,
  message: OutgoingMessage,
  timeoutMs?: number,
): Promise<PublishResult> {
  const tracer = trace.getTracer('berth-messaging');
  const span = tracer.startSpan(`publish ${message.subject}`, {
    kind: SpanKind.PRODUCER,
    attributes: {
      'messaging.system': 'nats',
      'messaging.destination.name': message.subject,
      'messaging.message.id': message.msgId ?? '',
    },
  });
  const headers = injectTraceContext(createHeaders(), trace.setSpan(context.active(), span));
  for (const [key, value] of Object.entries(message.headers ?? {})) headers.set(key, value);
  try {
    const ack: PubAck = await js.publish(message.subject, message.data, {
      msgID: message.msgId,
      headers,
      timeout: timeoutMs,
      expect: message.expectedStream ? { streamName: message.expectedStream } : undefined,
    });
    span.setAttribute('messaging.nats.stream_sequence', ack.seq);
    if (ack.duplicate) span.setAttribute('messaging.nats.duplicate', true);
    return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
