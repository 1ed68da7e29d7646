/** The outbox for product writes: a business change and its events stored in one document write, then relayed. */
export { OUTBOX_FIELD } from './outbox-types';
export type { OutboxCollection, OutboxDocument, OutboxEntry, OutboxEvent, OutboxSend } from './outbox-types';
export { createOutboxEntry } from './outbox-entry';
export type { OutboxEntryOptions } from './outbox-entry';
export { withOutboxDocument, withOutboxUpdate } from './with-outbox';
export { updateWithOutbox } from './update-with-outbox';
export type { UpdateWithOutboxOptions, UpdateWithOutboxResult } from './update-with-outbox';
export { insertWithOutbox } from './insert-with-outbox';
export type { InsertWithOutboxOptions } from './insert-with-outbox';
export {
  ensureOutboxIndex,
  pendingOutboxScanFilter,
  OUTBOX_INDEX_NAME,
  OUTBOX_SCAN_PATH,
  PENDING_OUTBOX_FILTER,
} from './outbox-index';
export { countPendingOutbox } from './count-pending-outbox';
export { readOutboxBacklog } from './read-outbox-backlog';
export type { OutboxBacklogReading } from './read-outbox-backlog';
export { createOutboxMetrics } from './outbox-metrics';
export type { OutboxMetricsOptions } from './outbox-metrics';
export { relayOutbox } from './relay-outbox';
export type { RelayOutboxOptions, RelayOutboxResult } from './relay-outbox';
export { createRelayLease } from './relay-lease';
export type { RelayLease, RelayLeaseOptions } from './relay-lease';
export { createOutboxRelay } from './outbox-relay';
export type { OutboxRelay, OutboxRelayOptions } from './outbox-relay';
