/**
 * Message headers on Berth's wire: the NATS server's own (`Nats-*`, as nats.js names them in `PubHeaders`) and
 * Berth's (`Berth-*`).
 */

/** The NATS server's headers Berth sets by hand. */
export const NATS_HEADERS = Object.freeze({
  /** Deduplication id inside a stream's duplicate window. */
  msgId: 'Nats-Msg-Id',
  /** The stream a publish must land in. */
  expectedStream: 'Nats-Expected-Stream',
  /** Compare-and-set on a subject's last sequence (KV revisions). */
  expectedLastSubjectSequence: 'Nats-Expected-Last-Subject-Sequence',
  /** A per-message TTL (`<n>s`). */
  ttl: 'Nats-TTL',
  /** A message schedule (`@at <ISO>`). */
  schedule: 'Nats-Schedule',
  /** Where the server publishes a scheduled message when it is due. */
  scheduleTarget: 'Nats-Schedule-Target',
} as const);

/**
 * The headers of a stored webhook in `WEBHOOKS` (see `@berth/messaging`'s stored-webhook for the two shapes, one event
 * or a batch).
 */
export const WEBHOOK_HEADERS = Object.freeze({
  provider: 'Berth-Provider',
  eventId: 'Berth-Event-Id',
  eventType: 'Berth-Event-Type',
  receivedAt: 'Berth-Received-At',
  batchSize: 'Berth-Batch-Size',
  /**
   * On a copy the gateway stored because the provider sent an event again while JetStream still held its first
   * message (the duplicate window): the consumer acts on it only to reopen the event if it was set aside.
   */
  resent: 'Berth-Resent',
  /**
   * Prefix of the provider's own request headers kept with a single event (`Berth-Header-X-GitHub-Event`): those its
   * scheme signs or identifies the event with (an allow-list per scheme in `@berth/webhooks`). In a batch they are
   * in each item's `headers`.
   */
  providerHeaderPrefix: 'Berth-Header-',
} as const);

/** The headers of a job message in `JOBS` (and of a cron tick, an ordinary job), read by the job engine. */
export const JOB_HEADERS = Object.freeze({
  /** The job's name on a message carrying one job (a cron tick, a plain publish). */
  jobName: 'Berth-Job-Name',
  /** The job's id. */
  jobId: 'Berth-Job-Id',
  /** The queue of a cron tick. */
  queue: 'Berth-Queue',
  /** The tick time of a cron tick. */
  scheduledAt: 'Berth-Scheduled-At',
  /** The number of jobs in a message written by `add` (a JSON array). */
  jobCount: 'Berth-Job-Count',
  /** The retry limit of a plain job message. */
  retryLimit: 'Berth-Retry-Limit',
  /** Why a scheduled job waits (delay, rate limit, throttle…). */
  waitReason: 'Berth-Wait-Reason',
  /** When a delayed job falls due. */
  notBefore: 'Berth-Not-Before',
} as const);

/** The headers of an outbound event in `OUTBOUND_EVENTS`. */
export const OUTBOUND_HEADERS = Object.freeze({
  eventType: 'Berth-Event-Type',
} as const);
