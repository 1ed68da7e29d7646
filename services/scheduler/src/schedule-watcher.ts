import { clockDelay, type Clock } from '@berth/contract';
import { KvWatchInclude, type KV } from '@nats-io/kv';
import {
  compileCronPattern,
  readCronSchedules,
  scheduledLine,
  scheduleFromEntry,
  type CompiledCron,
  type CronSchedule,
} from '@berth/cron';
import type { BerthLogger } from '@berth/logger';
import type { ScheduleChange, SchedulerEvents } from './scheduler-events';

/** A registered schedule the scheduler acts on, with its compiled pattern. */
export interface ActiveSchedule {
  readonly schedule: CronSchedule;
  readonly cron: CompiledCron;
  /** When the current pattern was registered: no tick before it is emitted. */
  readonly since: Date;
}

/** Options for {@link ScheduleWatcher}. */
export interface ScheduleWatcherOptions {
  kv: KV;
  logger: BerthLogger;
  /** Where it reports `schedules:loaded` and each `schedule:applied`. */
  events: SchedulerEvents;
  /** The timer of the watch's restart after it ends. */
  clock: Clock;
}

/**
 * Keeps the registered schedules in memory: reads them all at start, then follows the schedules bucket with a KV
 * watch, applying each entry only if its revision is newer than what it has (the watch starts before the
 * snapshot, so nothing written in between is missed). Logs `Cron <Name> scheduled: <pattern> (<zone>).` for each
 * schedule it sees and when one changes, and `Cron <Name> unscheduled.` when one is removed.
 */
export class ScheduleWatcher {
  private readonly active = new Map<string, ActiveSchedule>();
  private readonly revisions = new Map<string, number>();
  private running = false;
  private stopWatch: (() => void) | undefined;
  private loaded = false;

  constructor(private readonly options: ScheduleWatcherOptions) {}

  /** The schedules in force now. */
  schedules(): IterableIterator<ActiveSchedule> {
    return this.active.values();
  }

  /** True once the first snapshot is applied. */
  get ready(): boolean {
    return this.loaded;
  }

  /** Reads every schedule and starts following changes; resolves once the snapshot is applied. */
  async start(): Promise<void> {
    this.running = true;
    await this.follow();
  }

  /** Stops following changes. */
  stop(): void {
    this.running = false;
    this.stopWatch?.();
  }

  private async follow(): Promise<void> {
    const watch = await this.options.kv.watch({ include: KvWatchInclude.UpdatesOnly });
    this.stopWatch = () => watch.stop();
    const snapshot = await readCronSchedules(this.options.kv);
    for (const [name, { schedule, revision }] of snapshot) this.apply(name, schedule, revision);
    for (const name of [...this.active.keys()])
      if (!snapshot.has(name)) this.apply(name, undefined, Number.MAX_SAFE_INTEGER);
    this.loaded = true;
    this.options.events.emit('schedules:loaded', { count: this.active.size });
    void (async () => {
      try {
        for await (const entry of watch)
          this.apply(entry.key, scheduleFromEntry(entry), entry.revision, entry.operation === 'PUT');
      } catch (error) {
        this.options.logger.warn({ err: error }, 'Schedule watch failed');
      }
      if (!this.running) return;
      this.options.logger.warn('Schedule watch ended; reading the schedules again in 1 s');
      await clockDelay(this.options.clock, 1000);
      if (this.running)
        await this.follow().catch((error: unknown) =>
          this.options.logger.error({ err: error }, 'Could not restart the schedule watch'),
        );
    })();
  }

  private apply(
    name: string,
    schedule: CronSchedule | undefined,
    revision: number,
    isPut = schedule !== undefined,
  ): void {
    if (revision <= (this.revisions.get(name) ?? 0)) return;
    if (revision !== Number.MAX_SAFE_INTEGER) this.revisions.set(name, revision);
    else this.revisions.delete(name);
    const change = this.change(name, schedule, isPut);
    this.options.events.emit('schedule:applied', { name, revision, change });
  }

  private change(name: string, schedule: CronSchedule | undefined, isPut: boolean): ScheduleChange {
    const previous = this.active.get(name);
    if (schedule === undefined) {
      if (isPut)
        this.options.logger.error({ cron: name }, `Cron ${name}: the registered schedule is not readable; ignored`);
      if (!previous) return 'ignored';
      this.active.delete(name);
      this.options.logger.info({ cron: name }, `Cron ${name} unscheduled.`);
      return 'removed';
    }
    let cron: CompiledCron;
    try {
      cron = compileCronPattern(schedule.pattern, schedule.timeZone);
    } catch (error) {
      this.active.delete(name);
      this.options.logger.error({ cron: name, err: error }, `Cron ${name}: ${(error as Error).message}; ignored`);
      return 'ignored';
    }
    this.active.set(name, { schedule, cron, since: new Date(schedule.since) });
    const changed =
      !previous ||
      previous.schedule.pattern !== schedule.pattern ||
      previous.schedule.timeZone !== schedule.timeZone ||
      previous.schedule.queue !== schedule.queue;
    if (!changed) return 'unchanged';
    const change = previous ? 'updated' : 'added';
    this.options.logger.info(
      { cron: name, pattern: schedule.pattern, timeZone: schedule.timeZone, owner: schedule.owner, change },
      scheduledLine(schedule),
    );
    return change;
  }
}
