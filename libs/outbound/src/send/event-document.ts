/** What product code sent: the message on `OUTBOUND_EVENTS`, and the `outboundEvents` row the fan-out keeps for replays. */
export interface OutboundEvent {
  /** `evt_…`, derived from the workspace and the idempotency key. */
  eventId: string;
  workspaceId: string;
  eventType: string;
  /** The exact body every endpoint receives: `{"type","timestamp","data"}` as Standard Webhooks recommends. */
  body: string;
  idempotencyKey: string;
  /** When `send` was called (ISO 8601). */
  sentAt: string;
}

/** An event in `outboundEvents`, written once its deliveries are queued. */
export interface EventDocument {
  _id: string;
  workspaceId: string;
  eventType: string;
  body: string;
  idempotencyKey: string;
  createdAt: Date;
  /** The endpoints it was fanned out to. */
  endpointIds: string[];
}
