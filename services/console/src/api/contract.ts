/**
 * The console API's wire types: the JSON each route answers, as the browser receives it (dates are ISO 8601
 * strings). The web code imports these with `import type` only, so nothing of the server reaches its bundle, and
 * this file imports nothing, so the web's type check never loads the server. `contract-conformance.ts` checks
 * that what the server's modules return, once serialized, is assignable to these types: a field or a union member
 * added on one side and not the other fails `npm run typecheck`.
 */

/** What a value becomes through `JSON.stringify` and `JSON.parse`: dates turn into strings, `undefined` fields drop. */
export type Json<T> = T extends Date
  ? string
  : T extends string | number | boolean | null | undefined
    ? T
    : T extends readonly (infer Item)[]
      ? Json<Item>[]
      : T extends object
        ? { [K in keyof T]: Json<T[K]> }
        : T;

/** The states the events list filters by (`pending`: no attempt yet; `retrying`: attempted, not processed). */
export type ConsoleEventState = 'pending' | 'retrying' | 'set-aside' | 'processed';

/** How one attempt ended, as the console, the CLI and the API tell it (`webhookAttemptLog`). */
export type AttemptOutcome = 'succeeded' | 'failed' | 'superseded' | 'lease-ran-out' | 'running';

/** The roles of a console token. */
export type ConsoleRole = 'viewer' | 'operator' | 'issuer';

/** `GET /api/me`. */
export interface Me {
  actor: { kind: 'console'; name: string; role: ConsoleRole };
  jaegerUiUrl: string | null;
}

/** One event of `GET /api/webhooks/events`: never its payload. */
export interface EventRow {
  provider: string;
  eventId: string;
  type: string;
  state: ConsoleEventState;
  receivedAt: string;
  attempts: number;
  lastError: string | null;
  lastAttemptAt: string | null;
  processedAt: string | null;
  abandonedAt: string | null;
  /** When the live message's next delivery is due (null once its round ended, or when it is done). */
  nextAttemptAt: string | null;
  /** When the last attempt of its round failed: the recovery cron starts the next round. */
  roundEndedAt: string | null;
}

/** `GET /api/webhooks/events`. */
export interface EventSearchResult {
  events: EventRow[];
  total: number;
}

/** One attempt of an event's lease log. */
export interface AttemptEntry {
  generation: number;
  kind: 'attempt';
  owner: string;
  startedAt: string | null;
  endedAt: string | null;
  leaseUntil: string | null;
  outcome: AttemptOutcome;
  error: string | null;
}

/** `GET /api/webhooks/events/:provider/:eventId`. */
export interface EventDetail extends EventRow {
  requeueCount: number;
  reopenedAt: string | null;
  payload: string;
  payloadMasked: boolean;
  attemptErrors: { attempt: number; at: string; error: string }[];
  providerHeaders: Record<string, string>;
  attemptLog: AttemptEntry[];
  processedBefore: string[];
  schedule: {
    attempts: number;
    roundAttempt: number;
    perRound: number;
    round: number;
    rounds: number;
    setAsideAfter: number;
    ahead: { attempt: number; at: string }[];
    words: string;
  };
  alerts: { _id: string; raisedAt: string; attempts: number; lastError: string | null; hookError: string | null }[];
  message: {
    streamSequence: number;
    subject: string;
    storedAt: string;
    headers: Record<string, string>;
    batchSize: number;
    traceId: string | null;
  } | null;
  traceUrl: string | null;
}

/** One queue of `GET /api/jobs/queues`. */
export interface QueueDepth {
  queue: string;
  pending: number;
  ackPending: number;
  redelivered: number;
  waitingPulls: number;
  delayed: number;
  deadLetters: number;
}

/** Why a job was dead-lettered. */
export type DeadLetterReason = 'unrecoverable' | 'exhausted' | 'invalid' | 'poison';

/** One dead letter of `GET /api/jobs/dead`. */
export interface DeadLetter {
  id: number;
  queue: string;
  name: string;
  jobId: string;
  data: unknown;
  reason: DeadLetterReason;
  error: { name: string; message: string; stack?: string };
  attempts: number;
  retryLimit: number;
  failedAt: string;
  unreadable?: boolean;
}

/** One job of `GET /api/jobs/queues/:queue/jobs`. */
export interface QueueJob {
  jobId: string;
  name: string;
  /** `waiting`: not handed to a worker yet; `running`: handed to one (running, or between two attempts); `delayed`. */
  state: 'waiting' | 'running' | 'delayed';
  data: unknown;
  /** Attempts made before this message, and how many retries it has after its first. */
  attemptsMade: number;
  retryLimit: number;
  addedAt: string | null;
  /** A delayed job's due time, and why it waits (delay, retry backoff, rate limit). */
  notBefore: string | null;
  waitReason: string | null;
  /** Set when it was cancelled (a worker drops it when its turn comes). */
  cancelledAt: string | null;
  streamSequence: number;
}

/** `GET /api/jobs/queues/:queue/jobs`: one queue's jobs by state, the first `limit` of each place. */
export interface QueueJobs {
  queue: string;
  jobs: QueueJob[];
  /** True when a place held more messages than were read. */
  truncated: boolean;
}

/** One completed job of `GET /api/jobs/queues/:queue/completed`, as the worker recorded it in `JOBS_COMPLETED`. */
export interface CompletedJob {
  /** Its place in `JOBS_COMPLETED`: `<message sequence>.<index in the message>`. */
  id: string;
  queue: string;
  name: string;
  jobId: string;
  /** Left out (with `dataOmitted`) when its JSON was over 16 KiB. */
  data?: unknown;
  dataOmitted?: boolean;
  /** The attempt that succeeded, of `retryLimit + 1`. */
  attempt: number;
  retryLimit: number;
  addedAt: string | null;
  completedAt: string;
  durationMs: number;
  outcome: 'completed';
  replayOf?: string;
}

/** `GET /api/jobs/queues/:queue/completed`: the queue's last completed jobs, newest first. */
export interface CompletedJobs {
  queue: string;
  completed: CompletedJob[];
}

/** Where a job stands, as `explainJob` finds it. */
export type JobPlace =
  'cancelled' | 'delayed' | 'parked' | 'waiting' | 'delivered' | 'dead-lettered' | 'completed' | 'not-found';

/** What `jobs.promote` did (its `result`). */
export interface PromotedJob {
  queue: string;
  jobId: string;
  promoted: boolean;
  name?: string;
  previousNotBefore?: string;
  reason: string;
}

/** One cron of `GET /api/jobs/crons`. */
export interface Cron {
  name: string;
  pattern: string;
  timeZone: string;
  queue: string;
  owner: string;
  lastTick: string | null;
  nextTick: string | null;
  error?: string;
  /** The pattern in words, with its zone. */
  words: string;
  /** Where the last tick's job is: `completed` once it ran (while `JOBS_COMPLETED` keeps its record), `not-found` after. */
  lastRun: { state: JobPlace; reason: string } | null;
}

/** Where an issue's failures come from. */
export type IssueSource = 'webhooks' | 'jobs' | 'outbound';
/** What an operator said about an issue. */
export type IssueStatus = 'open' | 'acknowledged' | 'resolved';

/** One issue of `GET /api/issues`: failures of one cause. */
export interface Issue {
  id: string;
  source: IssueSource;
  scope: string;
  errorClass: string;
  shape: string;
  sample: string;
  count: number;
  firstSeen: string;
  lastSeen: string;
  examples: string[];
  states: Record<string, number>;
  action: {
    action: 'webhooks.retry-abandoned' | 'jobs.replay-dead' | 'outbound.replay';
    label: string;
    params: Record<string, unknown>;
  };
  status: IssueStatus;
  statusBy: string | null;
  statusAt: string | null;
  reopened: boolean;
}

/** One line of `GET /api/audit`. */
export interface AuditEntry {
  _id: string;
  at: string;
  actor: string;
  role: string;
  action: string;
  params: Record<string, unknown>;
  outcome: 'previewed' | 'done' | 'failed' | 'refused';
  summary: string;
}

/** What `POST /api/actions/:action/preview` answers. */
export interface ActionPreview {
  count: number;
  summary: string;
  items: unknown[];
  confirmation: string | null;
}

/** Why an endpoint is disabled. */
export type DisabledReason = 'manual' | 'gone' | 'failing';

/** An outbound endpoint, as the portal shows it. */
export interface PortalEndpoint {
  id: string;
  url: string;
  description: string;
  eventTypes: string[];
  enabled: boolean;
  disabledReason: DisabledReason | null;
  failingSince: string | null;
  activeSecrets: number;
}

/** An outbound endpoint, as the console shows it. */
export interface Endpoint extends PortalEndpoint {
  workspaceId: string;
  rateLimitPerSecond: number | null;
  ordered: boolean;
}

/** A delivery's status: its latest log entry's. */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

/** One outbound delivery with its log. */
export interface Delivery {
  id: string;
  eventId: string;
  endpointId: string;
  workspaceId: string;
  eventType: string;
  status: DeliveryStatus;
  attemptCount: number;
  replays: number;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  log: {
    round: number;
    attempt: number;
    kind: 'attempt' | 'skipped' | 'replay';
    outcome: string | null;
    status: DeliveryStatus;
    statusCode: number | null;
    durationMs: number | null;
    at: string;
    responseBody: string | null;
    error: string | null;
    address: string | null;
  }[];
}

/** `GET /api/outbound/deliveries/:id/request`: the request a delivery sends. */
export interface SentRequest {
  method: string;
  url: string | null;
  headers: Record<string, string>;
  timestamps: number[];
  body: string | null;
}

/** A portal session (`GET /api/portal/session`). */
export interface PortalSessionView {
  workspaceId: string;
  subject: string;
  expiresAt: string;
}

/** One event type of the portal's catalog. */
export interface EventTypeDoc {
  type: string;
  description: string;
  group?: string;
  schema: unknown;
  example: unknown;
}

/** One service's readiness as the Overview shows it. */
export interface ServiceHealth {
  name: string;
  url: string;
  status: 'ready' | 'not-ready' | 'unreachable';
  httpStatus: number | null;
  latencyMs: number | null;
  error: string | null;
}

/** The charts of one provider over a window. */
export interface ProviderSeries {
  provider: string;
  /** Events received, per minute, per bucket. */
  receivedPerMinute: number[];
  /** Events processed, per minute, per bucket. */
  processedPerMinute: number[];
  /** Unprocessed events whose latest attempt, in that bucket, failed. */
  failures: number[];
  /** Unprocessed events (pending, retrying or set aside) at the end of each bucket. */
  backlog: number[];
  /** Age in seconds of the oldest unprocessed event at the end of each bucket (0 when none). */
  oldestUnprocessedSeconds: number[];
  /** Now: unprocessed, set aside, oldest unprocessed age. */
  current: { unprocessed: number; setAside: number; oldestUnprocessedSeconds: number };
}

/** The lag of one durable consumer. */
export interface ConsumerLag {
  stream: string;
  consumer: string;
  /** Stored, not yet delivered. */
  pending: number;
  /** Delivered, not yet acked. */
  ackPending: number;
  redelivered: number;
  /** Pull requests waiting: workers idle. */
  waiting: number;
  /** When the consumer last acked anything. */
  lastActive: string | null;
}

/** `GET /api/overview?window=`. */
export interface Overview {
  window: { name: 'hour' | 'day'; buckets: string[] };
  generatedAt: string;
  webhooks: {
    partial: boolean;
    providers: ProviderSeries[];
  };
  queues: {
    sampledSince: string;
    series: {
      queue: string;
      completedPerMinute: number[];
      failures: number[];
      backlog: number[];
      running: number[];
      current: { pending: number; ackPending: number; delayed: number; deadLetters: number };
    }[];
  };
  services: ServiceHealth[];
  consumers: ConsumerLag[];
  scheduler: { leader: string | null; renewedAt: string | null };
}

/** One span of a {@link TraceView}. */
export interface TraceSpan {
  spanId: string;
  /** Null at the top level, or when the parent is not in the trace. */
  parentSpanId: string | null;
  service: string;
  operation: string;
  /** Start, in milliseconds after the trace's first span. */
  startMs: number;
  durationMs: number;
  /** Levels below the top in the span tree. */
  depth: number;
  /** The span recorded an error status. */
  error: boolean;
}

/** `GET /api/traces/:traceId`: a trace from the trace store, spans in tree order. */
export interface TraceView {
  traceId: string;
  durationMs: number;
  spans: TraceSpan[];
}
