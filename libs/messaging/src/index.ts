export {
  connectMessaging,
  inboxPrefixFor,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_PINGS_OUT,
  DEFAULT_PING_INTERVAL_MS,
} from './connection';
export { splitServerCredentials } from './server-credentials';
export type { ServersAndCredentials } from './server-credentials';
export type { Messaging, MessagingConnectionOptions } from './connection';
export {
  ensureStream,
  ensureWebhooksStreamExists,
  isNotFound,
  isWrongLastSequence,
  jetStreamErrorCode,
  PROVISIONING_ERROR_CODES,
  webhooksStream,
  jobsStream,
  delayedJobsStream,
  deadLettersStream,
  DEFAULT_STREAM_MAX_BYTES,
} from './streams';
export type { StreamSpec, StreamSizing, EnsureStreamOptions } from './streams';
export { ensureKvBucket } from './kv-buckets';
export { takeStart } from './rate-window';
export type { RateDecision, RateLimit, RateWindow } from './rate-window';
export { decodeRateWindow, takeKvRateStart } from './kv-rate-window';
export { ServerClock } from './server-clock';
export type { MonotonicClock } from './server-clock';
export { compareAndSetKv, KvContentionError } from './kv-compare-and-set';
export type { KvCompareAndSetOptions, KvDecision, KvKnownEntry, KvPut, KvReading, KvWrite } from './kv-compare-and-set';
export { KvLease, createWithTtl, updateWithTtl, ttlHeaderValue, effectiveTtlMs } from './kv-lease';
export type { KvLeaseOptions } from './kv-lease';
export type { KvRateDecision } from './kv-rate-window';
export { ensureConsumer } from './consumers';
export type { ConsumerSpec } from './consumers';
export { publishMessage } from './publisher';
export type { OutgoingMessage, PublishResult } from './publisher';
export { injectTraceContext, extractTraceContext, createHeaders } from './trace-headers';
export {
  UnrecoverableError,
  RetryLaterError,
  ScheduledRetryError,
  describeError,
  failureOf,
  isPermissionViolation,
} from './errors';
export { exponentialBackoff, WEBHOOK_RETRY_POLICY } from './backoff';
export type { RetryPolicy, ExponentialBackoffOptions } from './backoff';
export { decideRetry } from './retry-decision';
export type { RetryDecision, FailedAttempt } from './retry-decision';
export { startConsumer } from './consumer-runner';
export type { ConsumerRunner, ConsumerRunnerOptions, GiveUpReason } from './consumer-runner';
export { startPrioritizedConsumer } from './prioritized-consumer-runner';
export type { PrioritizedConsumerOptions } from './prioritized-consumer-runner';
export { pullWaiting, WaitingPullError } from './waiting-pull';
export type { WaitingPullOptions, WaitingPullRequest } from './waiting-pull';
export type { ReceivedMessage } from './received-message';
export { subjectMatches } from './subject-match';
export { GroupCommitQueue, GroupCommitFullError, GroupCommitTimeoutError } from './group-commit';
export type { GroupCommitOptions, CommitItems } from './group-commit';
export {
  WEBHOOK_HEADERS,
  setProviderHeaders,
  readProviderHeaders,
  encodeWebhookBatch,
  decodeWebhookBatch,
  MalformedWebhookBatchError,
} from './stored-webhook';
export type { StoredWebhookItem } from './stored-webhook';
export {
  consumerCoversProvider,
  webhookProviderCoverage,
  webhookProvidersWithoutConsumer,
} from './webhook-consumer-coverage';
export type { WebhookProviderCoverage } from './webhook-consumer-coverage';
