// The job API: what a product team writes (decorators, the module, MessageQueueService.add) and what operators
// and the scheduler use (cron definitions, dead letters, queue depths).
export { Processor } from './decorators/processor.decorator';
export type { ProcessorOptions } from './decorators/processor.decorator';
export { Process } from './decorators/process.decorator';
export type { ProcessOptions } from './decorators/process.decorator';
export { CronProcessor } from './decorators/cron-processor.decorator';
export type { CronProcessorOptions } from './decorators/cron-processor.decorator';
export { InjectMessageQueue, getMessageQueueToken } from './decorators/inject-message-queue.decorator';
export { processorOptionsOf, cronOptionsOf, processMethodsOf } from './decorators/read-metadata';

export { MessageQueueModule } from './message-queue.module';
export type { MessageQueueModuleAsyncOptions } from './message-queue.module';
export { MESSAGE_QUEUE_DRIVER } from './message-queue-options';
export type { MessageQueueModuleOptions, MessageQueueDriverName } from './message-queue-options';
export { MessageQueueService } from './message-queue.service';
export { DEFAULT_QUEUE_OPTIONS, resolveQueueOptions, jobRetryPolicy } from './job-options';
export type {
  AddJobOptions,
  AddedJob,
  QueueOptions,
  ResolvedQueueOptions,
  BackoffOptions,
  KeyConcurrency,
  KeyRateLimit,
} from './job-options';
export { UnrecoverableError, RetryLaterError } from '@berth/messaging';
export { UnknownJobError, JobTimeoutError, JobCancelledError, PoisonMessageError, BatchJobError } from './errors';
export type { BatchJobFailure } from './errors';
export type {
  JobObserver,
  JobQueuedEvent,
  JobFinishedEvent,
  JobDeadLetteredEvent,
  JobCompletionNotRecordedEvent,
} from './job-observer';
export type { CancellationRecord } from './drivers/cancellations';
export { cancelJob, listCancellations } from './operations/cancel-job';
export { promoteJob } from './operations/promote-job';
export type { PromotedJob, PromoteJobOptions } from './operations/promote-job';
export { listCompletedJobs } from './completed-jobs/list-completed-jobs';
export {
  COMPLETED_JOBS_STREAM_NAME,
  DEFAULT_COMPLETED_JOBS_KEPT,
  MAX_RECORDED_DATA_BYTES,
  completedJobSubject,
  completedJobsStream,
} from './completed-jobs/completed-job';
export type { CompletedJob, StoredCompletedJob, CompletedJobsOptions } from './completed-jobs/completed-job';
export { CANCELLATIONS_BUCKET } from './drivers/jetstream/kv-cancellations';
export type { KvCancellationOptions } from './drivers/jetstream/kv-cancellations';
export type { KvDeliveryLedgerOptions } from './drivers/jetstream/kv-delivery-ledger';
export { listLimitedKeys } from './operations/list-limited-keys';
export { explainJob } from './operations/explain-job';
export type { JobExplanation } from './operations/explain-job';
export type { LimitedKeys } from './operations/list-limited-keys';
export type { KeySlotState, KvKeySlotOptions } from './drivers/jetstream/kv-key-slots';
export type { RateLimitState, KvRateLimitOptions } from './drivers/jetstream/kv-rate-limits';
export { PARKED_JOBS_STREAM_NAME } from './drivers/jetstream/parked-jobs-stream';

export { JobRegistry } from './discovery/job-registry';
export type { RegisteredJob, JobInfo, BatchJob, BatchInfo } from './discovery/job-registry';
export { validateCronPattern, DEFAULT_CRON_TIME_ZONE } from './discovery/cron-definition';
export type { CronDefinition } from './discovery/cron-definition';
export { cronTickOf } from './cron-run-guard';
export type { CronRun, CronRunGuard } from './cron-run-guard';

export {
  CRON_QUEUE_NAME,
  JOBS_STREAM_NAME,
  DELAYED_JOBS_STREAM_NAME,
  DEAD_LETTERS_STREAM_NAME,
  jobSubject,
  delayedJobSubject,
  dueJobSubject,
  deadLetterSubject,
  queueConsumerName,
  queueFilterSubject,
  dueQueueFilterSubject,
  parseJobSubject,
  PRIORITY_LEVELS,
  priorityJobSubject,
  priorityConsumerName,
} from './names';
export type { JobRecord } from './job-record';

export type { QueueDriver } from './drivers/queue-driver';
export { JetStreamQueueDriver } from './drivers/jetstream/jetstream-queue-driver';
export type { JetStreamQueueDriverOptions } from './drivers/jetstream/jetstream-queue-driver';
export { JetStreamJobProducer } from './drivers/jetstream/jetstream-job-producer';
export type { ProducerAddOptions } from './drivers/jetstream/jetstream-job-producer';
export { createJobProducer } from './drivers/jetstream/create-job-producer';
export type { CreateJobProducerOptions } from './drivers/jetstream/create-job-producer';
export type { BatchingOptions } from './drivers/jetstream/job-batch-publisher';
export { provisionJobInfrastructure } from './drivers/jetstream/job-infrastructure';
export type { JobInfrastructure, JobInfrastructureOptions } from './drivers/jetstream/job-infrastructure';
export type { KvDeduplicationOptions } from './drivers/jetstream/kv-deduplication-registry';
export { SyncQueueDriver } from './drivers/sync/sync-queue-driver';
export { createWorkerEvents } from './flow/worker-events';
export type { WorkerEventMap, WorkerEvents, WorkerJobRef } from './flow/worker-events';
export { runJobAttempt } from './flow/run-job-attempt';
export type { JobAttempt } from './flow/run-job-attempt';
export { InMemoryDeadLetters } from './drivers/sync/in-memory-dead-letters';

export type { DeadLetter, StoredDeadLetter, DeadLetterReason } from './dead-letters/dead-letter';
export { listDeadLetters, countDeadLetters } from './dead-letters/list-dead-letters';
export { writeDeadLetter } from './dead-letters/write-dead-letter';
export { describeJobError } from './dead-letters/dead-letter';
export type { ListDeadLettersOptions } from './dead-letters/list-dead-letters';
export { replayDeadLetter, replayAllDeadLetters } from './dead-letters/replay-dead-letter';
export type { ReplayResult } from './dead-letters/replay-dead-letter';
export { getQueueDepths } from './operations/get-queue-depths';
export type { QueueDepth } from './operations/get-queue-depths';
