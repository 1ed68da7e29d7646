import type { IndexDescription } from 'mongodb';
import { ensureIndexes } from './ensure-indexes';
import { ensureLeaseIndexes } from './leases/ensure-lease-indexes';
import type { Inbox } from './types';

/**
 * The indexes of `webhookEvents`. None is partial or TTL (FerretDB 1.24 has neither):
 * - `{provider, eventId}` unique: the inbox's identity, besides `_id`.
 * - `{processedAt, receivedAt}`: the recovery cron (`processedAt: null`, oldest first) and the retention cron
 *   (`processedAt` older than N days).
 * - `{abandonedAt}`: listing and reopening set-aside events.
 */
export const INBOX_EVENT_INDEXES: IndexDescription[] = [
  { key: { provider: 1, eventId: 1 }, name: 'provider_eventId_unique', unique: true },
  { key: { processedAt: 1, receivedAt: 1 }, name: 'processedAt_receivedAt' },
  { key: { abandonedAt: 1 }, name: 'abandonedAt' },
];

/**
 * Creates the inbox's indexes, and its lease collection's (plus `{until}`, which the retention deletes old leases
 * by). Idempotent: every replica calls it at start. `inboxAlerts` needs none (looked up by `_id`).
 *
 * Indexes are created one by one, and only those missing: FerretDB 1.24 drops the connection (a server panic) on a
 * multi-index `createIndexes` whose indexes already exist.
 */
export async function ensureInboxIndexes(options: { inbox: Inbox }): Promise<void> {
  await ensureIndexes(options.inbox.events, INBOX_EVENT_INDEXES);
  await ensureLeaseIndexes({ leases: options.inbox.leases });
  await ensureIndexes(options.inbox.leases, [{ key: { until: 1 }, name: 'until' }]);
}
