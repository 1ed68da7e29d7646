/** The JetStream KV buckets Berth keeps (see `nats kv ls`); each opener takes another name for tests. */
export const BUCKETS = Object.freeze({
  /** One entry per registered cron schedule, keyed by cron name. */
  cronSchedules: 'berth_cron_schedules',
  /** The last emitted tick per cron schedule. */
  cronLastTicks: 'berth_cron_last_tick',
  /** The scheduler's leader lease, key `leader`. */
  schedulerLease: 'berth_scheduler_lease',
  /** One lock per running cron. */
  cronRunLocks: 'berth_cron_run_locks',
  /** Job deduplication claims. */
  jobDedup: 'berth_job_dedup',
  /** Job cancellations. */
  jobCancellations: 'berth_job_cancel',
  /** The delivery ledger: how often a job took a worker down (the poison limit). */
  jobDeliveries: 'berth_job_deliveries',
  /** Per-key concurrency slots. */
  jobKeys: 'berth_job_keys',
  /** Rate-limit windows. */
  jobRates: 'berth_job_rates',
  /** Throttle and debounce windows. */
  jobWindows: 'berth_job_windows',
  /** Singleton keys: the one job of a key waiting or running. */
  jobSingletons: 'berth_job_singletons',
  /** The outbound dispatcher's per-endpoint rate windows, shared by its replicas. */
  outboundRates: 'berth_outbound_rates',
} as const);
