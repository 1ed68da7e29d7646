export type { Clock, Inbox, InboxAlertDocument, InboxAttemptError, InboxEventDocument, WebhookEvent } from './types';
export { MAX_ATTEMPT_ERRORS } from './types';
export { systemClock } from './types';
export {
  inboxCollections,
  inboxEventKey,
  WEBHOOK_EVENTS_COLLECTION,
  WEBHOOK_EVENT_LEASES_COLLECTION,
  WEBHOOK_EVENT_ALERTS_COLLECTION,
} from './collections';
export { ensureInboxIndexes, INBOX_EVENT_INDEXES } from './indexes';
export { ensureIndexes } from './ensure-indexes';
export {
  readWebhookMessage,
  readWebhookBatch,
  isWebhookBatch,
  webhookMessageWeight,
  webhookLogContext,
  WEBHOOK_HEADERS,
} from './webhook-message';
export type { BatchedWebhookEvent } from './webhook-message';
export { recordReceivedEvent } from './record-received-event';
export type { RecordReceivedEventOptions } from './record-received-event';
export { claimEvent } from './claim-event';
export type { ClaimEventOptions, ClaimOutcome, ClaimResult } from './claim-event';
export { extendEventLease } from './extend-event-lease';
export type { ExtendEventLeaseOptions } from './extend-event-lease';
export { markProcessed } from './mark-processed';
export type { MarkProcessedOptions } from './mark-processed';
export { recordFailure, MAX_LAST_ERROR_LENGTH } from './record-failure';
export type { RecordFailureOptions } from './record-failure';
export { processInboxEvent, applyInboxEvent } from './process-inbox-event';
export { processWebhookMessage } from './process-webhook-message';
export type { ProcessWebhookMessageOptions } from './process-webhook-message';
export type {
  InboxEventHandler,
  InboxHandlerEvent,
  ProcessInboxEventOptions,
  ProcessInboxEventResult,
} from './process-inbox-event';
export { acquireLease } from './leases/acquire-lease';
export type { AcquireLeaseOptions, AcquireLeaseResult } from './leases/acquire-lease';
export { renewLease } from './leases/renew-lease';
export type { RenewLeaseOptions } from './leases/renew-lease';
export { releaseLease } from './leases/release-lease';
export type { ReleaseLeaseOptions } from './leases/release-lease';
export { ensureLeaseIndexes } from './leases/ensure-lease-indexes';
export { leaseDocumentId } from './leases/lease-types';
export type { Lease, LeaseCollection, LeaseDocument } from './leases/lease-types';
export { upsertIfNewer } from './upsert-if-newer';
export type { UpsertIfNewerOptions, UpsertIfNewerResult } from './upsert-if-newer';
export { isDuplicateKeyError, DUPLICATE_KEY_ERROR_CODE } from './mongo-errors';
export { waitForInboxEvent } from './wait-for-inbox-event';
export type { WaitForInboxEventOptions } from './wait-for-inbox-event';
export { ScheduledRetryError } from '@berth/messaging';
export { messageState, DEFAULT_LIVE_MESSAGE_GRACE_MS } from './round-state';
export type { MessageState } from './round-state';
export { withEventLease } from './with-event-lease';
export type { WithEventLeaseOptions, WithEventLeaseResult } from './with-event-lease';
export {
  republishWebhookEvent,
  requeueMessageId,
  webhookEventSubject,
  WEBHOOKS_STREAM,
} from './republish-webhook-event';
export type { RepublishWebhookEventOptions } from './republish-webhook-event';
export { recoverWebhookEvents, DEFAULT_MAX_ATTEMPTS, DEFAULT_RECOVERY_MIN_AGE_MS } from './recover-webhook-events';
export type { RecoverWebhookEventsOptions, RecoverWebhookEventsResult } from './recover-webhook-events';
export { raiseSetAsideAlert, createWebhookAlertHook, alertIdOf, WEBHOOK_SET_ASIDE_COUNTER } from './webhook-alerts';
export type {
  RaiseSetAsideAlertOptions,
  WebhookAlertHook,
  WebhookAlertHookOptions,
  WebhookEventAlert,
  WebhookSetAsideMetric,
} from './webhook-alerts';
export {
  deleteExpiredWebhookEvents,
  expiredEventsFilter,
  DEFAULT_WEBHOOK_EVENT_RETENTION_DAYS,
  RETENTION_INDEX,
} from './delete-expired-webhook-events';
export type {
  DeleteExpiredWebhookEventsOptions,
  DeleteExpiredWebhookEventsResult,
} from './delete-expired-webhook-events';
export { retryAbandonedWebhookEvents } from './retry-abandoned-webhook-events';
export type {
  RetryAbandonedWebhookEventsOptions,
  RetryAbandonedWebhookEventsResult,
} from './retry-abandoned-webhook-events';
export { listWebhookEvents, WEBHOOK_EVENT_STATES } from './list-webhook-events';
export type {
  ListWebhookEventsOptions,
  ListWebhookEventsResult,
  WebhookEventState,
  WebhookEventSummary,
} from './list-webhook-events';
export { redeliverWebhookEvent } from './redeliver-webhook-event';
export { reopenResentWebhookEvent } from './reopen-resent-event';
export type { ReopenResentWebhookEventOptions, ReopenResentWebhookEventResult } from './reopen-resent-event';
export type { RedeliverWebhookEventOptions, RedeliverWebhookEventResult } from './redeliver-webhook-event';
export { registerWebhookConsumerMetrics, readInboxBacklog } from './webhook-consumer-metrics';
export type { WebhookConsumerMetricsOptions } from './webhook-consumer-metrics';
