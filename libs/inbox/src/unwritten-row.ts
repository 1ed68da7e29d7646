import { insertEventRow, type InsertResult } from './store/hot-path-writes';
import type { EventLease, Inbox, InboxEventDocument } from './types';

/**
 * Writes the row a first attempt left unwritten (`EventLease.unwrittenRow`, see `recordAndClaimEvent`), with
 * `fields` over it, through the inbox's group commit of rows; the lease carries no row afterwards. `duplicate` when
 * a row exists already (another claimer recorded the event after this lease ran out), `none` when the lease carried
 * no row: either way the caller updates the row as it stands.
 */
export async function writeUnwrittenRow(
  inbox: Inbox,
  lease: EventLease,
  fields: Partial<InboxEventDocument>,
): Promise<InsertResult | 'none'> {
  const row = lease.unwrittenRow;
  if (!row) return 'none';
  lease.unwrittenRow = undefined;
  return insertEventRow(inbox, { ...row, ...fields });
}
