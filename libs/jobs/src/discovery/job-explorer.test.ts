import 'reflect-metadata';
import { Injectable, Module, Scope, type Provider } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createLogger } from '@berth/logger';
import { CronProcessor } from '../decorators/cron-processor.decorator';
import { getMessageQueueToken } from '../decorators/inject-message-queue.decorator';
import { Process } from '../decorators/process.decorator';
import { Processor } from '../decorators/processor.decorator';
import type { CronRun, CronRunGuard } from '../cron-run-guard';
import { MessageQueueModule } from '../message-queue.module';
import type { MessageQueueService } from '../message-queue.service';
import { JobRegistry } from './job-registry';

const logger = createLogger({ service: 'explorer-test', level: 'silent' });

async function boot(providers: Provider[], queues: string[] = ['q'], cronRunGuard?: CronRunGuard) {
  @Module({ providers })
  class Feature {}
  @Module({ imports: [MessageQueueModule.forRoot({ driver: 'sync', logger, queues, cronRunGuard }), Feature] })
  class Root {}
  return NestFactory.createApplicationContext(Root, { logger: false, abortOnError: false });
}

describe('discovery of @Processor and @CronProcessor classes', () => {
  it('registers every @Process method of the providers, and the crons with their schedule', async () => {
    @Injectable()
    class Helper {
      value = 'helped';
    }
    const ran: string[] = [];
    @Processor({ queueName: 'q' })
    class TwoJobs {
      constructor(private readonly helper: Helper) {}
      @Process('First')
      async first(data: { n: number }) {
        ran.push(`first ${data.n} ${this.helper.value}`);
      }
      @Process('Second')
      async second() {
        ran.push('second');
      }
    }
    @CronProcessor({ pattern: '*/10 * * * *', timeZone: 'Europe/Paris' })
    class TenMinutesCron {
      @Process(TenMinutesCron.name)
      async handle() {
        ran.push('cron');
      }
    }
    const app = await boot([Helper, TwoJobs, TenMinutesCron]);
    const registry = app.get(JobRegistry);
    expect(registry.queues()).toEqual(['cron-queue', 'q']);
    expect(registry.jobsOf('q').map((job) => job.name)).toEqual(['First', 'Second']);
    expect(registry.crons()).toEqual([
      {
        name: 'TenMinutesCron',
        pattern: '*/10 * * * *',
        timeZone: 'Europe/Paris',
        queue: 'cron-queue',
        className: 'TenMinutesCron',
      },
    ]);
    await app.get<MessageQueueService>(getMessageQueueToken('q')).add('First', { n: 1 });
    await app.get<MessageQueueService>(getMessageQueueToken('cron-queue')).add(TenMinutesCron.name, {});
    expect(ran).toEqual(['first 1 helped', 'cron']);
    await app.close();
  });

  it('refuses to start on mistakes a team would otherwise find in production', async () => {
    @Processor({ queueName: 'undeclared' })
    class OnUndeclaredQueue {
      @Process('X')
      async handle() {}
    }
    await expect(boot([OnUndeclaredQueue])).rejects.toThrow(
      'OnUndeclaredQueue is on queue undeclared, which MessageQueueModule.forRoot({ queues }) does not declare',
    );

    @Processor({ queueName: 'q' })
    class NoProcess {}
    await expect(boot([NoProcess])).rejects.toThrow('NoProcess has @Processor but no @Process');

    @Processor({ queueName: 'q' })
    class One {
      @Process('Same')
      async handle() {}
    }
    @Processor({ queueName: 'q' })
    class Two {
      @Process('Same')
      async handle() {}
    }
    await expect(boot([One, Two])).rejects.toThrow('Job Same on queue q is processed twice: by One and by Two');

    @CronProcessor({ pattern: '0 8 * *' })
    class BadCron {
      @Process(BadCron.name)
      async handle() {}
    }
    await expect(boot([BadCron])).rejects.toThrow('must have 5 fields');

    @CronProcessor({ pattern: '0 8 * * 1', timeZone: 'Mars/Olympus' })
    class BadZone {
      @Process(BadZone.name)
      async handle() {}
    }
    await expect(boot([BadZone])).rejects.toThrow('Invalid cron schedule');

    @Injectable({ scope: Scope.REQUEST })
    @Processor({ queueName: 'q' })
    class Scoped {
      @Process('Scoped')
      async handle() {}
    }
    await expect(boot([Scoped])).rejects.toThrow('Scoped: a @Processor must be a singleton provider');
  });

  it('is configured from a factory with forRootAsync', async () => {
    const ran: number[] = [];
    @Processor({ queueName: 'async-q' })
    class AsyncJob {
      @Process('AsyncJob')
      async handle({ n }: { n: number }) {
        ran.push(n);
      }
    }
    @Module({ providers: [{ provide: 'LOGGER', useValue: logger }], exports: ['LOGGER'] })
    class LoggingModule {}
    @Module({
      imports: [
        MessageQueueModule.forRootAsync({
          queues: ['async-q'],
          imports: [LoggingModule],
          inject: ['LOGGER'],
          useFactory: (injected: typeof logger) => ({ driver: 'sync', logger: injected }),
        }),
      ],
      providers: [AsyncJob],
    })
    class Root {}
    const app = await NestFactory.createApplicationContext(Root, { logger: false });
    await app.get<MessageQueueService>(getMessageQueueToken('async-q')).add('AsyncJob', { n: 7 });
    expect(ran).toEqual([7]);
    await app.close();
  });
  it('accepts 6-field patterns (seconds first), and crons on a queue of their own', async () => {
    @CronProcessor({ pattern: '*/5 * * * * *' })
    class EveryFiveSecondsCron {
      @Process(EveryFiveSecondsCron.name)
      async handle() {}
    }
    @CronProcessor({ pattern: ' 30 3 * * * ', queueName: 'platform-cron-queue' })
    class NightlyPlatformCron {
      @Process(NightlyPlatformCron.name)
      async handle() {}
    }
    const app = await boot([EveryFiveSecondsCron, NightlyPlatformCron], ['platform-cron-queue']);
    expect(app.get(JobRegistry).crons()).toEqual([
      {
        name: 'EveryFiveSecondsCron',
        pattern: '*/5 * * * * *',
        timeZone: 'UTC',
        queue: 'cron-queue',
        className: 'EveryFiveSecondsCron',
      },
      {
        name: 'NightlyPlatformCron',
        pattern: '30 3 * * *',
        timeZone: 'UTC',
        queue: 'platform-cron-queue',
        className: 'NightlyPlatformCron',
      },
    ]);
    expect(
      app
        .get(JobRegistry)
        .jobsOf('platform-cron-queue')
        .map((job) => job.name),
    ).toEqual(['NightlyPlatformCron']);
    await app.close();

    @CronProcessor({ pattern: '@daily' })
    class AliasCron {
      @Process(AliasCron.name)
      async handle() {}
    }
    await expect(boot([AliasCron])).rejects.toThrow('must have 5 fields');
    @CronProcessor({ pattern: '0 0 8 * * 1 2026' })
    class SevenFieldsCron {
      @Process(SevenFieldsCron.name)
      async handle() {}
    }
    await expect(boot([SevenFieldsCron])).rejects.toThrow('or 6 with seconds first; it has 7');
  });

  it('runs every cron job through the cronRunGuard, with its tick; other jobs run as they are', async () => {
    const seen: Array<{ cron: Omit<CronRun, 'job'>; jobName: string }> = [];
    const ran: Array<{ data: unknown; aborted?: boolean }> = [];
    let skip = false;
    const controller = new AbortController();
    const guard: CronRunGuard = async (cron, run) => {
      seen.push({ cron: { name: cron.name, queue: cron.queue, tick: cron.tick }, jobName: cron.job.name });
      if (skip) return;
      await run(controller.signal);
    };
    @CronProcessor({ pattern: '* * * * * *' })
    class GuardedCron {
      @Process(GuardedCron.name)
      async handle(data: unknown, info: { signal?: AbortSignal }) {
        ran.push({ data, aborted: info.signal?.aborted });
      }
    }
    @Processor({ queueName: 'q' })
    class PlainJob {
      @Process('Plain')
      async handle(data: unknown) {
        ran.push({ data });
      }
    }
    const app = await boot([GuardedCron, PlainJob], ['q'], guard);
    const cronQueue = app.get<MessageQueueService>(getMessageQueueToken('cron-queue'));
    await cronQueue.add(GuardedCron.name, { scheduledAt: '2026-03-02T08:00:00.000Z' });
    const before = Date.now();
    await cronQueue.add(GuardedCron.name, {});
    await app.get<MessageQueueService>(getMessageQueueToken('q')).add('Plain', { n: 1 });
    skip = true;
    await cronQueue.add(GuardedCron.name, { scheduledAt: '2026-03-02T08:00:01.000Z' });

    expect(seen.map((entry) => entry.cron.tick.toISOString())[0]).toBe('2026-03-02T08:00:00.000Z');
    expect(seen[1].cron.tick.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(seen).toHaveLength(3);
    expect(
      seen.every(
        (entry) =>
          entry.cron.name === 'GuardedCron' && entry.cron.queue === 'cron-queue' && entry.jobName === 'GuardedCron',
      ),
    ).toBe(true);
    expect(ran).toEqual([
      { data: { scheduledAt: '2026-03-02T08:00:00.000Z' }, aborted: false },
      { data: {}, aborted: false },
      { data: { n: 1 } },
    ]);
    await app.close();
  });

  it('retries a cron job whose guarded run throws', async () => {
    let attempts = 0;
    const guard: CronRunGuard = async (_cron, run) => run();
    @CronProcessor({ pattern: '0 * * * *' })
    class FlakyCron {
      @Process(FlakyCron.name)
      async handle() {
        attempts += 1;
        if (attempts < 2) throw new Error('first attempt fails');
      }
    }
    const app = await boot([FlakyCron], ['q'], guard);
    await app.get<MessageQueueService>(getMessageQueueToken('cron-queue')).add(FlakyCron.name, {});
    expect(attempts).toBe(2);
    await app.close();
  });
  it('applies @Process options: timeoutMs fires the signal and fails the attempt; concurrency and rateLimit are registered', async () => {
    const seen: unknown[] = [];
    @Processor({ queueName: 'q' })
    class SlowJob {
      @Process('Slow', {
        timeoutMs: 50,
        concurrency: { key: (data: { ws: string }) => data.ws, limit: 2 },
        rateLimit: { key: (data: { ws: string }) => data.ws, limit: 5, perMs: 1000 },
      })
      async handle(_data: { ws: string }, info: { signal?: AbortSignal }) {
        await new Promise<void>((resolve) =>
          info.signal?.addEventListener('abort', () => {
            seen.push(info.signal?.reason);
            resolve();
          }),
        );
      }
    }
    const app = await boot([SlowJob]);
    const job = app.get(JobRegistry).find('q', 'Slow');
    expect(job?.timeoutMs).toBe(50);
    expect(job?.concurrency?.limit).toBe(2);
    expect(job?.concurrency?.key({ ws: 'w1' })).toBe('w1');
    expect(job?.rateLimit).toMatchObject({ limit: 5, perMs: 1000 });
    await expect(
      app.get<MessageQueueService>(getMessageQueueToken('q')).add('Slow', { ws: 'w1' }, { retryLimit: 1 }),
    ).rejects.toThrow('Job timed out after 50 ms');
    expect(seen).toHaveLength(2);
    await app.close();
  });
});
