/**
 * The inbox's public API: what the services, the other libraries and the cross-service tests use. Everything else
 * stays inside the package (its own tests import the modules themselves).
 */
export type {
  EventLease,
  Inbox,
  InboxAlertDocument,
  InboxAttemptError,
  InboxEventDocument,
  InboxSuccess,
  WebhookEvent,
} from './types';
export { inboxCollections, inboxEventKey, WEBHOOK_EVENTS_COLLECTION } from './collections';
export { markProcessed } from './mark-processed';
export type { MarkProcessedOptions } from './mark-processed';
export { recordFailure } from './record-failure';
export type { RecordFailureOptions } from './record-failure';
export { ensureInboxIndexes } from './indexes';
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
export { processInboxEvent, applyInboxEvent } from './process-inbox-event';
export { processWebhookMessage } from './process-webhook-message';
export type { ProcessWebhookMessageOptions } from './process-webhook-message';
export type {
  InboxEventHandler,
  InboxHandlerEvent,
  ProcessInboxEventOptions,
  ProcessInboxEventResult,
} from './process-inbox-event';
export { waitForInboxEvent } from './wait-for-inbox-event';
export type { WaitForInboxEventOptions } from './wait-for-inbox-event';
export { ScheduledRetryError } from '@berth/messaging';
export { republishWebhookEvent, requeueMessageId, WEBHOOKS_STREAM } from './republish-webhook-event';
export type { RepublishWebhookEventOptions } from './republish-webhook-event';
export { recoverWebhookEvents, DEFAULT_MAX_ATTEMPTS } from './recover-webhook-events';
export type { RecoverWebhookEventsOptions, RecoverWebhookEventsResult } from './recover-webhook-events';
export { createWebhookAlertHook, WEBHOOK_SET_ASIDE_COUNTER } from './webhook-alerts';
export type {
  WebhookAlertHook,
  WebhookAlertHookOptions,
  WebhookEventAlert,
  WebhookSetAsideMetric,
} from './webhook-alerts';
export { deleteExpiredWebhookEvents, expiredEventsFilter, RETENTION_INDEX } from './delete-expired-webhook-events';
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
export { resendProcessedWebhookEvent } from './resend-processed-webhook-event';
export type { ResendProcessedWebhookEventResult } from './resend-processed-webhook-event';
export { readWebhookAttemptLog, webhookAttemptLog } from './attempt-log';
export type { AttemptLogEntry, AttemptOutcome } from './attempt-log';
export { registerWebhookConsumerMetrics, readInboxBacklog } from './webhook-consumer-metrics';
export type { WebhookConsumerMetricsOptions } from './webhook-consumer-metrics';
