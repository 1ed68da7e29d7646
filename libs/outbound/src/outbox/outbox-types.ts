import type { Collection, Document } from 'mongodb';

/** The array field of a business document that holds its pending events. */
export const OUTBOX_FIELD = '_outbox';

/** An event to send once the business write it belongs to is stored. */
export interface OutboxEvent {
  workspaceId: string;
  /** e.g. `invoice.paid`: what endpoints subscribe to. */
  eventType: string;
  /** The event body; anything `JSON.stringify` accepts. */
  payload: unknown;
}

/**
 * One pending event, stored in the business document's {@link OUTBOX_FIELD} array by the same update that writes
 * the business fields, and removed by the relay once sent.
 */
export interface OutboxEntry {
  /** A UUID: the idempotency key of the send, so a resend after a crash reaches receivers as the same message. */
  id: string;
  workspaceId: string;
  eventType: string;
  /**
   * The payload as JSON text, fixed at write time: what is stored is exactly what will be sent (`toJSON` and dates
   * applied once, at the write). Text, not a sub-document, also keeps payload keys with `.` or `$` out of the
   * document's field names, where queries and update operators cannot address them.
   */
  payload: string;
  createdAt: Date;
}

/** A business document that may carry pending outbox entries. */
export interface OutboxDocument extends Document {
  _outbox?: OutboxEntry[];
}

/** A collection whose documents may carry pending outbox entries. */
export type OutboxCollection = Collection<OutboxDocument>;

/**
 * Publishes one event (in Berth: to the outbound stream, with `Nats-Msg-Id` = `idempotencyKey`, so a second
 * publish of the same entry within the stream's duplicate window is dropped and receivers see one `webhook-id`).
 * Resolves once the event is durably accepted; rejects if it is not.
 */
export type OutboxSend = (
  workspaceId: string,
  eventType: string,
  payload: unknown,
  options: { idempotencyKey: string },
) => Promise<unknown>;
