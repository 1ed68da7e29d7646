import type { IndexDescription } from 'mongodb';
import { ensureIndexes } from '@berth/store';
import type { Inbox } from './types';

/**
 * The indexes of `webhookEvents` (every hot-path write is by `_id`, which needs none of them):
 * - `{provider, eventId}`: lookups and listings by provider. Not unique: `_id` (`<provider>:<eventId>`) is the
 *   identity already, and a second unique index costs every insert a check that grows with the collection on the
 *   embedded store (DocumentDB enforces it with an exclusion constraint; see the README's design notes).
 * - `{processedAt, receivedAt}`: the recovery cron (`processedAt: null`, oldest first) and the retention cron
 *   (`processedAt` older than N days).
 * - `{abandonedAt}`: listing and reopening set-aside events.
 */
export const INBOX_EVENT_INDEXES: IndexDescription[] = [
  { key: { provider: 1, eventId: 1 }, name: 'provider_eventId' },
  { key: { processedAt: 1, receivedAt: 1 }, name: 'processedAt_receivedAt' },
  { key: { abandonedAt: 1 }, name: 'abandonedAt' },
];

/**
 * Creates the inbox's indexes. Idempotent: every replica calls it at start. `inboxAlerts` needs none (looked up by
 * `_id`).
 */
export async function ensureInboxIndexes(options: { inbox: Inbox }): Promise<void> {
  await ensureIndexes(options.inbox.events, INBOX_EVENT_INDEXES);
}
