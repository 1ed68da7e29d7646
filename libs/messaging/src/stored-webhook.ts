import { WEBHOOK_HEADERS } from '@berth/contract';

/**
 * How the gateway stores verified webhooks in stream `WEBHOOKS`, and how the consumers read them back. Two shapes:
 * - one event per message: the raw body as the data, the facts in the `Berth-*` headers, `Nats-Msg-Id:
 *   <provider>:<eventId>`;
 * - a batch (group commit: several events of one subject that arrived while an earlier message of that subject was
 *   being stored): header `Berth-Batch-Size: <n>`, no `Berth-Event-Id`, and as the data, per event, one line of
 *   JSON ({@link StoredWebhookItem} without the payload, plus `bytes`) followed by exactly that many bytes of raw
 *   body and a newline. The bodies are stored as received, byte for byte, and stay readable in `nats stream view`.
 */
export { WEBHOOK_HEADERS };

/** What {@link setProviderHeaders} writes into: a NATS `MsgHdrs`. */
interface HeaderWriter {
  set(key: string, value: string): void;
}

/** What {@link readProviderHeaders} reads: a NATS `MsgHdrs`. */
interface HeaderReader {
  keys(): string[];
  get(key: string): string;
}

/** Writes a single event's kept provider headers as `Berth-Header-<name>`. */
export function setProviderHeaders(target: HeaderWriter, headers: Readonly<Record<string, string>> | undefined): void {
  for (const [name, value] of Object.entries(headers ?? {}))
    target.set(`${WEBHOOK_HEADERS.providerHeaderPrefix}${name}`, value);
}

/** The kept provider headers of a single-event message, keyed in lower case; `{}` when it carries none. */
export function readProviderHeaders(source: HeaderReader | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  const prefix = WEBHOOK_HEADERS.providerHeaderPrefix.toLowerCase();
  for (const key of source?.keys() ?? []) {
    if (key.toLowerCase().startsWith(prefix)) kept[key.slice(prefix.length).toLowerCase()] = source!.get(key);
  }
  return kept;
}

/** One event of a batch message. */
export interface StoredWebhookItem {
  /** The provider's event id. */
  readonly eventId: string;
  /** When the gateway received it, ISO 8601. */
  readonly receivedAt: string;
  /** The raw body the signature was verified over. */
  readonly payload: Uint8Array;
  /** W3C `traceparent` of the event's producer span, so each event keeps its own trace. */
  readonly traceparent?: string;
  readonly tracestate?: string;
  /** The provider's kept request headers, lower-case names (see `WEBHOOK_HEADERS.providerHeaderPrefix`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A batch message's data could not be read; it can never be processed. */
export class MalformedWebhookBatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedWebhookBatchError';
  }
}

const NEWLINE = 0x0a;

/** The data of a batch message. */
export function encodeWebhookBatch(items: readonly StoredWebhookItem[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const item of items) {
    const { payload, ...facts } = item;
    parts.push(Buffer.from(`${JSON.stringify({ ...facts, bytes: payload.byteLength })}\n`), payload, Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

/**
 * Reads a batch message's data back.
 * @throws MalformedWebhookBatchError when the framing is broken, or an item lacks its event id or receive time.
 */
export function decodeWebhookBatch(data: Uint8Array): StoredWebhookItem[] {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const items: StoredWebhookItem[] = [];
  for (let offset = 0; offset < bytes.length;) {
    const lineEnd = bytes.indexOf(NEWLINE, offset);
    if (lineEnd === -1) throw new MalformedWebhookBatchError(`webhook batch item ${items.length} has no header line`);
    const facts = parseFacts(bytes.toString('utf8', offset, lineEnd), items.length);
    const bodyEnd = lineEnd + 1 + facts.bytes;
    if (bodyEnd >= bytes.length || bytes[bodyEnd] !== NEWLINE)
      throw new MalformedWebhookBatchError(`webhook batch item ${items.length} is cut short`);
    items.push({
      eventId: facts.eventId,
      receivedAt: facts.receivedAt,
      traceparent: facts.traceparent,
      tracestate: facts.tracestate,
      headers: facts.headers,
      payload: bytes.subarray(lineEnd + 1, bodyEnd),
    });
    offset = bodyEnd + 1;
  }
  if (items.length === 0) throw new MalformedWebhookBatchError('webhook batch is empty');
  return items;
}

interface ItemFacts {
  eventId: string;
  receivedAt: string;
  bytes: number;
  traceparent?: string;
  tracestate?: string;
  headers?: Record<string, string>;
}

/** An item's `headers`: an object of strings, or left out (older batches have none). */
function stringRecord(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  return Object.fromEntries(entries.map(([name, text]) => [name.toLowerCase(), text]));
}

function parseFacts(line: string, index: number): ItemFacts {
  let facts: Record<string, unknown>;
  try {
    facts = JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new MalformedWebhookBatchError(`webhook batch item ${index}: header line is not JSON`);
  }
  const { eventId, receivedAt, bytes, traceparent, tracestate, headers } = facts ?? {};
  if (
    typeof eventId !== 'string' ||
    eventId === '' ||
    typeof receivedAt !== 'string' ||
    typeof bytes !== 'number' ||
    !Number.isInteger(bytes) ||
    bytes < 0
  ) {
    throw new MalformedWebhookBatchError(`webhook batch item ${index} lacks eventId, receivedAt or bytes`);
  }
  return {
    eventId,
    receivedAt,
    bytes,
    traceparent: typeof traceparent === 'string' ? traceparent : undefined,
    tracestate: typeof tracestate === 'string' ? tracestate : undefined,
    headers: stringRecord(headers),
  };
}
