import { sendEvent, type SendEventDependencies, type SendOptions, type SentEvent } from './send-event';

/** `send(workspaceId, eventType, payload, { idempotencyKey })`, bound to a JetStream connection. */
export type SendOutboundEvent = (
  workspaceId: string,
  eventType: string,
  payload: unknown,
  options: SendOptions,
) => Promise<SentEvent>;

/**
 * The API product code (and the outbox relay) calls: `const send = createOutboundSender({ js: messaging.js });
 * await send('ws_1', 'invoice.paid', { invoiceId }, { idempotencyKey: \`invoice.paid:${invoiceId}\` })`.
 * See {@link sendEvent}.
 */
export function createOutboundSender(dependencies: SendEventDependencies): SendOutboundEvent {
  return (workspaceId, eventType, payload, options) =>
    sendEvent(dependencies, workspaceId, eventType, payload, options);
}
