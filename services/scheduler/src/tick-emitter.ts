import type { JetStreamClient } from '@nats-io/jetstream';
import { cronTickMessage, planDueTicks, scheduleCursor, type LastTickStore } from '@berth/cron';
import type { Clock } from '@berth/contract';
import type { BerthLogger } from '@berth/logger';
import { publishMessage } from '@berth/messaging';
import type { SchedulerMetrics } from './metrics';
import type { SchedulerEvents } from './scheduler-events';
import type { ActiveSchedule } from './schedule-watcher';

/** Options for {@link TickEmitter}. */
export interface TickEmitterOptions {
  js: JetStreamClient;
  lastTicks: LastTickStore;
  /** Asked right before each publish: a leader whose lease lapsed (paused, partitioned) emits nothing. */
  isLeader(): boolean;
  schedules(): Iterable<ActiveSchedule>;
  logger: BerthLogger;
  metrics: SchedulerMetrics;
  /** Where it reports each `tick:emitted`. */
  events: SchedulerEvents;
  clock: Clock;
  /** See `planDueTicks`: ticks later than this are collapsed into the latest (catch up once). */
  graceMs: number;
  /** How long one publish may wait for its PubAck. */
  publishTimeoutMs: number;
}

/**
 * The leader's work: for each schedule, publish the ticks that are due (`planDueTicks`) to JOBS, oldest first,
 * and record each as the schedule's last tick once JetStream has it. A failed publish is retried at the next pass
 * (the tick is still due); a tick published twice (failover, split brain) is stored once thanks to its
 * `Nats-Msg-Id`.
 */
export class TickEmitter {
  constructor(private readonly options: TickEmitterOptions) {}

  /** Forgets the cached last ticks (another leader may have moved them): call on becoming leader. */
  resetCache(): void {
    this.options.lastTicks.clear();
  }

  /** One pass over every schedule. Resolves with the time of the next tick to wake up for, if any. */
  async emitDue(): Promise<Date | undefined> {
    const { logger, metrics, clock } = this.options;
    const now = clock.now();
    let wakeAt: Date | undefined;
    for (const active of this.options.schedules()) {
      if (!this.options.isLeader()) return undefined;
      const { name } = active.schedule;
      try {
        const cursor = scheduleCursor(active.since, await this.options.lastTicks.get(name));
        const plan = planDueTicks({ cron: active.cron, cursor, now, graceMs: this.options.graceMs });
        if (plan.collapsed) {
          const { first, latest } = plan.collapsed;
          logger.info(
            { cron: name, firstMissed: first.toISOString(), latestMissed: latest.toISOString() },
            `Cron ${name} missed its ticks from ${first.toISOString()} to ${latest.toISOString()} while no scheduler ran; catching up once with ${latest.toISOString()}.`,
          );
          metrics.caughtUp(name);
        }
        for (const tick of plan.ticks) {
          if (!this.options.isLeader()) {
            logger.warn({ cron: name, tick: tick.toISOString() }, 'Not emitting: no longer leader');
            return undefined;
          }
          const ack = await publishMessage(
            this.options.js,
            cronTickMessage(active.schedule, tick),
            this.options.publishTimeoutMs,
          );
          metrics.tickPublished(name, ack.duplicate);
          this.options.events.emit('tick:emitted', { name, tick, seq: ack.seq, duplicate: ack.duplicate });
          logger.debug(
            { cron: name, tick: tick.toISOString(), seq: ack.seq, duplicate: ack.duplicate },
            'Cron tick emitted',
          );
          await this.options.lastTicks.record(name, tick);
        }
        if (plan.next && (!wakeAt || plan.next < wakeAt)) wakeAt = plan.next;
      } catch (error) {
        metrics.tickFailed(name);
        logger.error(
          { cron: name, err: error },
          `Cron ${name}: could not emit its due ticks; retrying at the next pass`,
        );
      }
    }
    return wakeAt;
  }
}
