import type { JsMsg } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/nats-core';
import { NATS_HEADERS } from '@berth/contract';

/** A message handed to a handler: its content and delivery facts, without the power to ack it. */
export interface ReceivedMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly headers?: MsgHdrs;
  /** The `Nats-Msg-Id` it was published with. */
  readonly msgId?: string;
  /** 1 on the first delivery. */
  readonly deliveryCount: number;
  readonly streamSequence: number;
  /** When JetStream stored it. */
  readonly storedAt: Date;
  /** The body parsed as JSON. */
  json<T>(): T;
  /** The body as UTF-8 text. */
  text(): string;
  /** Tells JetStream the handler is still working, pushing back the redelivery deadline. */
  working(): void;
}

/** Wraps a JetStream message for a handler. */
export function toReceivedMessage(msg: JsMsg): ReceivedMessage {
  return {
    subject: msg.subject,
    data: msg.data,
    headers: msg.headers,
    msgId: msg.headers?.get(NATS_HEADERS.msgId) || undefined,
    deliveryCount: msg.info.deliveryCount,
    streamSequence: msg.seq,
    storedAt: new Date(Math.floor(msg.info.timestampNanos / 1e6)),
    json: <T>() => msg.json<T>(),
    text: () => msg.string(),
    working: () => msg.working(),
  };
}
