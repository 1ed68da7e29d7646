import { Counter, Gauge, Registry } from 'prom-client';

/**
 * The scheduler's Prometheus metrics, in the registry given (the service shell's, which serves `/metrics`) or in one
 * of its own (never prom-client's global one, so several schedulers can live in one test process):
 * - `scheduler_is_leader`: 1 while this replica holds the lease (sum over replicas should be 1);
 * - `scheduler_ticks_emitted_total{cron}`: ticks stored on JOBS by this replica;
 * - `scheduler_ticks_duplicate_total{cron}`: ticks JetStream recognised as already stored (`Nats-Msg-Id`), e.g.
 *   re-emitted after a failover;
 * - `scheduler_catch_ups_total{cron}`: times missed ticks were collapsed into one (every scheduler was down);
 * - `scheduler_tick_errors_total{cron}`: passes where a tick could not be published (retried next pass);
 * - `scheduler_leader_changes_total`: times this replica became leader or stepped down.
 */
export class SchedulerMetrics {
  readonly registry: Registry;
  private readonly isLeader: Gauge;
  private readonly emitted: Counter<'cron'>;
  private readonly duplicates: Counter<'cron'>;
  private readonly catchUps: Counter<'cron'>;
  private readonly errors: Counter<'cron'>;
  private readonly leaderChanges: Counter;

  /** @param options.registry where to register (the service shell's); default a registry of its own. */
  constructor(options: { registry?: Registry } = {}) {
    this.registry = options.registry ?? new Registry();
    const registers = [this.registry];
    this.isLeader = new Gauge({
      name: 'scheduler_is_leader',
      help: '1 while this scheduler replica holds the leader lease',
      registers,
    });
    this.emitted = new Counter({
      name: 'scheduler_ticks_emitted_total',
      help: 'Cron ticks published to JOBS by this replica',
      labelNames: ['cron'],
      registers,
    });
    this.duplicates = new Counter({
      name: 'scheduler_ticks_duplicate_total',
      help: 'Cron ticks JetStream already had (same Nats-Msg-Id)',
      labelNames: ['cron'],
      registers,
    });
    this.catchUps = new Counter({
      name: 'scheduler_catch_ups_total',
      help: 'Times missed cron ticks were collapsed into the latest one',
      labelNames: ['cron'],
      registers,
    });
    this.errors = new Counter({
      name: 'scheduler_tick_errors_total',
      help: 'Passes where a cron tick could not be published',
      labelNames: ['cron'],
      registers,
    });
    this.leaderChanges = new Counter({
      name: 'scheduler_leader_changes_total',
      help: 'Times this replica became leader or stepped down',
      registers,
    });
    this.isLeader.set(0);
  }

  /** Records a change of leadership. */
  setLeader(leading: boolean): void {
    this.isLeader.set(leading ? 1 : 0);
    this.leaderChanges.inc();
  }

  /** Counts one published tick (`duplicate`: JetStream already had it). */
  tickPublished(cron: string, duplicate: boolean): void {
    (duplicate ? this.duplicates : this.emitted).labels(cron).inc();
  }

  /** Counts one catch-up (missed ticks collapsed into the latest). */
  caughtUp(cron: string): void {
    this.catchUps.labels(cron).inc();
  }

  /** Counts one failed pass for a cron. */
  tickFailed(cron: string): void {
    this.errors.labels(cron).inc();
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** The `Content-Type` of {@link render}'s output. */
  get contentType(): string {
    return this.registry.contentType;
  }
}
