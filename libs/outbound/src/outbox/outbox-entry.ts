import { systemClock, type Clock } from '@berth/contract';
import { randomUUID } from 'node:crypto';
import { assertEventType, assertWorkspaceId } from '../names';
import type { OutboxEntry, OutboxEvent } from './outbox-types';

/** How entries get their id and time; both injectable for tests. */
export interface OutboxEntryOptions {
  clock?: Clock;
  newId?: () => string;
}

/**
 * Makes the stored entry of an event: a fresh UUID (its idempotency key for ever after), the payload frozen as JSON
 * text, and the creation time. The event is checked as `send` will check it, so an event that could never be sent
 * fails the business write now instead of blocking its document's outbox later.
 *
 * @throws TypeError for an invalid workspace id or event type, or a payload that cannot be serialized (a cycle, a
 * BigInt) or serializes to nothing.
 */
export function createOutboxEntry(event: OutboxEvent, options: OutboxEntryOptions = {}): OutboxEntry {
  assertWorkspaceId(event.workspaceId);
  assertEventType(event.eventType);
  const payload = JSON.stringify(event.payload) as string | undefined;
  if (payload === undefined) throw new TypeError(`the payload of a ${event.eventType} event must be JSON`);
  return {
    id: (options.newId ?? randomUUID)(),
    workspaceId: event.workspaceId,
    eventType: event.eventType,
    payload,
    createdAt: (options.clock ?? systemClock).now(),
  };
}
