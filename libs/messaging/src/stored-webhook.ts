/**
 * How the gateway stores verified webhooks in stream `WEBHOOKS`, and how the consumers read them back. Two shapes:
 * - one event per message: the raw body as the data, the facts in the `Berth-*` headers, `Nats-Msg-Id:
 *   <provider>:<eventId>`;
 * - a batch (group commit: several events of one subject that arrived while an earlier message of that subject was
 *   being stored): header `Berth-Batch-Size: <n>`, no `Berth-Event-Id`, and a JSON array of
 *   {@link StoredWebhookItem} as the data, each item with its own event id, receive time, trace context and raw body.
 */
export const WEBHOOK_HEADERS = {
  provider: 'Berth-Provider',
  eventId: 'Berth-Event-Id',
  eventType: 'Berth-Event-Type',
  receivedAt: 'Berth-Received-At',
  batchSize: 'Berth-Batch-Size',
} as const;

/** One event of a batch message. */
export interface StoredWebhookItem {
  /** The provider's event id. */
  readonly eventId: string;
  /** When the gateway received it, ISO 8601. */
  readonly receivedAt: string;
  /** The raw body the signature was verified over, as UTF-8 text. */
  readonly payload: string;
  /** W3C `traceparent` of the event's producer span, so each event keeps its own trace. */
  readonly traceparent?: string;
  readonly tracestate?: string;
}

/** A batch message's data could not be read; it can never be processed. */
export class MalformedWebhookBatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedWebhookBatchError';
  }
}

const encoder = new TextEncoder();

/** The data of a batch message. */
export function encodeWebhookBatch(items: readonly StoredWebhookItem[]): Uint8Array {
  return encoder.encode(JSON.stringify(items));
}

/**
 * Reads a batch message's data back.
 * @throws MalformedWebhookBatchError when it is not a JSON array of items with an event id, receive time and payload.
 */
export function decodeWebhookBatch(text: string): StoredWebhookItem[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new MalformedWebhookBatchError('webhook batch is not valid JSON');
  }
  if (!Array.isArray(parsed) || parsed.length === 0) throw new MalformedWebhookBatchError('webhook batch is not a non-empty JSON array');
  return parsed.map((item: unknown, index) => {
    const candidate = item as Partial<Record<keyof StoredWebhookItem, unknown>> | null;
    if (typeof candidate?.eventId !== 'string' || candidate.eventId === '' || typeof candidate.receivedAt !== 'string' || typeof candidate.payload !== 'string') {
      throw new MalformedWebhookBatchError(`webhook batch item ${index} lacks eventId, receivedAt or payload`);
    }
    return {
      eventId: candidate.eventId,
      receivedAt: candidate.receivedAt,
      payload: candidate.payload,
      traceparent: typeof candidate.traceparent === 'string' ? candidate.traceparent : undefined,
      tracestate: typeof candidate.tracestate === 'string' ? candidate.tracestate : undefined,
    };
  });
}
