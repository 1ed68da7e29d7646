import type { InboxHandlerEvent } from '@berth/inbox';

/**
 * The verified event an `@OnWebhook` method receives: the provider's event id and type (read by the gateway from
 * where that provider puts them, see `docs/webhooks.md`), the parsed body, the raw body exactly as verified and
 * stored, the provider's signed and identifying request headers, when the gateway received it, and which attempt this is (1 first, counted across deliveries and
 * replicas by the inbox).
 */
export interface ReceivedWebhook<TBody = unknown> extends InboxHandlerEvent {
  /** The provider's event id, the inbox's dedupe key with the provider (same as `eventId`). */
  readonly id: string;
  readonly body: TBody;
  /**
   * The provider's request headers the gateway kept with the event, lower-case names: those its scheme signs or
   * identifies the event with (GitHub `x-github-event`, `x-github-delivery`, `x-hub-signature-256`; Standard
   * Webhooks `webhook-id`, …; see `docs/webhooks.md`), the same on every attempt, requeue and redeliver. `{}` for
   * events stored before headers were kept.
   */
  readonly headers: Readonly<Record<string, string>>;
}

/** The handler-facing event of an inbox event. */
export function toReceivedWebhook(event: InboxHandlerEvent): ReceivedWebhook {
  return { ...event, id: event.eventId, headers: event.headers ?? {} };
}
