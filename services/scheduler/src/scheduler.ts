import { LastTickStore, LeaderLease, openCronBuckets, type CronBucketOptions, type CronBuckets } from '@berth/cron';
import { systemClock, type Clock } from '@berth/contract';
import type { BerthLogger } from '@berth/logger';
import { ensureStream, jobsStream, type Messaging } from '@berth/messaging';
import type { SchedulerMetrics } from './metrics';
import { createSchedulerEvents, type SchedulerEvents } from './scheduler-events';
import { ScheduleWatcher } from './schedule-watcher';
import { TickEmitter } from './tick-emitter';

/** Options for {@link Scheduler.create}. */
export interface SchedulerOptions {
  messaging: Messaging;
  logger: BerthLogger;
  metrics: SchedulerMetrics;
  /** This replica's id in the lease (`<hostname>:<pid>:<random>`). */
  holder: string;
  leaseTtlMs: number;
  tickIntervalMs: number;
  /** Ticks later than this are collapsed (catch up once); 2 × lease TTL + tick interval by default. */
  graceMs?: number;
  /** Time and the timers of the lease rounds and the tick loop; a `ManualClock` lets a test run them. */
  clock?: Clock;
  /** Where the replica reports what it does (see {@link Scheduler.events}); a new emitter by default. */
  events?: SchedulerEvents;
  /** Bucket names and replicas (tests use their own names); the replicas also size JOBS when it has to be created. */
  buckets?: CronBucketOptions;
}

/** Sleep added after a tick's time before waking, so the tick is due when the pass runs. */
const WAKE_SLACK_MS = 5;

/**
 * One scheduler replica: follows the registered schedules, competes for the leader lease, and while it leads emits
 * the due ticks. Every replica is ready (and serves health) whether it leads or not.
 */
export class Scheduler {
  /** The lease's, the schedule watcher's and the tick loop's typed events. */
  readonly events: SchedulerEvents;
  private readonly lease: LeaderLease;
  private readonly watcher: ScheduleWatcher;
  private readonly emitter: TickEmitter;
  private readonly clock: Clock;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  private constructor(
    private readonly options: SchedulerOptions,
    readonly buckets: CronBuckets,
  ) {
    const { logger, metrics, holder } = options;
    this.clock = options.clock ?? systemClock;
    this.events = options.events ?? createSchedulerEvents();
    this.lease = new LeaderLease({ buckets, holder, ttlMs: options.leaseTtlMs, logger, clock: this.clock });
    this.lease.events.on('lease:change', (event) => this.events.emit('lease:change', event));
    this.lease.events.on('lease:renewed', (event) => this.events.emit('lease:renewed', event));
    this.lease.events.on('lease:round', (event) => this.events.emit('lease:round', event));
    this.watcher = new ScheduleWatcher({ kv: buckets.schedules, logger, events: this.events, clock: this.clock });
    this.events.on('lease:change', ({ holder: who, leading }) => {
      if (who !== holder) return;
      metrics.setLeader(leading);
      if (leading) this.emitter.resetCache();
      this.wake?.();
    });
    this.events.on('schedule:applied', ({ name, change }) => {
      // The last ticks are the scheduler's: the service that unschedules a cron may not write them
      // (deploy/nats/auth.conf), so the leader forgets the last tick of a cron that was unscheduled.
      if (change === 'removed' && this.lease.isLeader()) void this.forgetLastTick(name);
      this.wake?.();
    });
    this.emitter = new TickEmitter({
      js: options.messaging.js,
      lastTicks: new LastTickStore(buckets.lastTicks, holder, this.clock),
      isLeader: () => this.lease.isLeader(),
      schedules: () => this.watcher.schedules(),
      logger,
      metrics,
      events: this.events,
      clock: this.clock,
      graceMs: options.graceMs ?? 2 * options.leaseTtlMs + options.tickIntervalMs,
      publishTimeoutMs: Math.min(5000, Math.max(1000, Math.floor(options.leaseTtlMs / 2))),
    });
  }

  /**
   * Deletes the last tick of an unscheduled cron. Housekeeping only: a cron registered again starts from its new
   * registration (the later of that and its last tick), so a last tick left behind, when no scheduler led at the
   * time, changes nothing.
   */
  private async forgetLastTick(name: string): Promise<void> {
    try {
      await this.buckets.lastTicks.delete(name);
      this.events.emit('schedule:forgotten', { name });
    } catch (error) {
      this.options.logger.warn({ cron: name, err: error }, `Cron ${name}: could not delete its last tick`);
    }
  }

  /** Opens the cron buckets and makes sure the JOBS stream exists (created with Berth's defaults if absent). */
  static async create(options: SchedulerOptions): Promise<Scheduler> {
    const buckets = await openCronBuckets(options.messaging.js, options.buckets);
    await ensureStream(options.messaging.jsm, jobsStream({ replicas: options.buckets?.replicas }), {
      existing: 'keep',
    });
    return new Scheduler(options, buckets);
  }

  /** True once the schedules are loaded, while connected to NATS (false during a reconnection). */
  get ready(): boolean {
    return this.watcher.ready && this.options.messaging.isConnected();
  }

  /** True while this replica holds a valid lease. */
  isLeader(): boolean {
    return this.lease.isLeader();
  }

  /** Loads the schedules, then starts the lease rounds and the tick loop. */
  async start(): Promise<void> {
    await this.watcher.start();
    this.running = true;
    this.lease.start();
    this.loop = this.tickLoop();
  }

  /** Stops emitting (waiting for a pass in progress), releases the lease so a successor takes over at once. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await this.lease.stop();
    this.watcher.stop();
  }

  /** One lease round (tests drive the scheduler with these two instead of {@link start}). */
  maintainLease(): Promise<boolean> {
    return this.lease.maintain();
  }

  /** One emission pass; resolves with the next tick to wake for. */
  runPass(): Promise<Date | undefined> {
    return this.emitter.emitDue();
  }

  /** Loads the schedules without starting the timers (tests). */
  loadSchedules(): Promise<void> {
    return this.watcher.start();
  }

  private async tickLoop(): Promise<void> {
    while (this.running) {
      let delay = this.options.tickIntervalMs;
      const leading = this.lease.isLeader();
      let next: Date | undefined;
      if (leading) {
        try {
          next = await this.emitter.emitDue();
          if (next) delay = Math.min(delay, Math.max(0, next.getTime() - this.clock.now().getTime()) + WAKE_SLACK_MS);
        } catch (error) {
          this.options.logger.error({ err: error }, 'Tick pass failed');
        }
      }
      if (!this.running) break;
      const woken = new Promise<void>((resolve) => {
        const cancel = this.clock.setTimer(delay, resolve);
        this.wake = () => {
          cancel();
          resolve();
        };
      });
      this.events.emit('tick:pass', { leading, next });
      await woken;
      this.wake = undefined;
    }
  }
}
