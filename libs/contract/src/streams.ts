/**
 * The names of Berth's JetStream streams and the subjects each holds. Every publisher sends
 * `Nats-Expected-Stream: <name>`, every consumer and provisioner names the stream, from here; the stream
 * configurations (retention, limits) stay with their provisioners (`@berth/messaging`'s `webhooksStream()`…).
 */
export const STREAMS = Object.freeze({
  /** Every verified inbound webhook, on `webhooks.<provider>.<type>`. */
  webhooks: 'WEBHOOKS',
  /** Background and cron jobs, on `jobs.<queue>.<name>`. */
  jobs: 'JOBS',
  /** Jobs that must not run yet, on `delayed-jobs.>`. */
  delayedJobs: 'JOBS_DELAYED',
  /** Jobs waiting for a per-key concurrency slot, on `parked.<queue>.<key>`. */
  parkedJobs: 'JOBS_PARKED',
  /** Fair jobs waiting for their key's turn, on `fair.<queue>.<key>.<name>`. */
  fairJobs: 'JOBS_FAIR',
  /** The last completed jobs of each queue, on `completed-jobs.<queue>`. */
  completedJobs: 'JOBS_COMPLETED',
  /** What can never succeed, with its error, on `dead.<origin subject>`. */
  deadLetters: 'DEAD_LETTERS',
  /** Outbound events product code sends, on `outbound.events.<workspaceId>`. */
  outboundEvents: 'OUTBOUND_EVENTS',
  /** Per-endpoint outbound deliveries and their scheduled retries. */
  outboundDeliveries: 'OUTBOUND_DELIVERIES',
} as const);

/** One of Berth's stream names. */
export type StreamName = (typeof STREAMS)[keyof typeof STREAMS];

/** The subjects each stream holds, as its configuration lists them. */
export const STREAM_SUBJECTS: Readonly<Record<keyof typeof STREAMS, readonly string[]>> = Object.freeze({
  webhooks: ['webhooks.>'],
  jobs: ['jobs.>'],
  delayedJobs: ['delayed-jobs.>'],
  parkedJobs: ['parked.>'],
  fairJobs: ['fair.>'],
  completedJobs: ['completed-jobs.>'],
  deadLetters: ['dead.>'],
  outboundEvents: ['outbound.events.>'],
  outboundDeliveries: ['outbound.deliver.>', 'outbound.retry.>'],
});
