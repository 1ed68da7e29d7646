import type { Inbox, InboxEventDocument } from './types';

/** Options for {@link waitForInboxEvent}. */
export interface WaitForInboxEventOptions {
  inbox: Inbox;
  /** `<provider>:<eventId>`. */
  key: string;
  /** The state waited for; by default, processed. */
  until?: (event: InboxEventDocument) => boolean;
  timeoutMs?: number;
  /** Pause between reads. */
  intervalMs?: number;
}

/**
 * Polls the inbox until the event reaches a state, with a deadline; for tests and scripts that have no event to
 * wait on (another process does the work). Rejects with the last state seen when the deadline passes.
 */
export async function waitForInboxEvent(options: WaitForInboxEventOptions): Promise<InboxEventDocument> {
  const until = options.until ?? ((event: InboxEventDocument) => event.processedAt !== null);
  const deadline = Date.now() + (options.timeoutMs ?? 10000);
  for (;;) {
    const event = await options.inbox.events.findOne({ _id: options.key });
    if (event && until(event)) return event;
    if (Date.now() > deadline) {
      throw new Error(
        `Inbox event ${options.key} did not reach the expected state in time; last seen: ${JSON.stringify(event)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}
