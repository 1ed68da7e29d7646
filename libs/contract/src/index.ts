export { STREAMS, STREAM_SUBJECTS } from './streams';
export type { StreamName } from './streams';
export {
  eventTypeToSubjectTokens,
  webhookSubject,
  providerFilterSubject,
  ALL_WEBHOOKS_SUBJECT,
  jobSubject,
  PRIORITY_LEVELS,
  priorityJobSubject,
  jobSubjectOf,
  priorityFilterSubject,
  queueFilterSubject,
  delayedJobSubject,
  delayedJobsFilter,
  dueJobSubject,
  dueQueueFilterSubject,
  completedJobSubject,
  deadLetterSubject,
  deadLettersFilter,
  parkedSubject,
  fairSubject,
  fairQueueFilter,
  parkedFilter,
  outboundEventSubject,
  ALL_OUTBOUND_EVENTS_SUBJECT,
  deliverySubject,
  retrySubject,
  ENDPOINT_CHANGED_SUBJECT,
  kvKeySubject,
} from './subjects';
export {
  queueConsumerName,
  queueOfConsumer,
  priorityConsumerName,
  defaultWebhookConsumerName,
  WEBHOOK_CONSUMERS,
  FAN_OUT_CONSUMER,
  endpointConsumerName,
} from './consumers';
export { BUCKETS } from './buckets';
export { NATS_HEADERS, WEBHOOK_HEADERS, JOB_HEADERS, OUTBOUND_HEADERS } from './headers';
export { systemClock, clockDelay } from './clock';
export type { Clock } from './clock';
