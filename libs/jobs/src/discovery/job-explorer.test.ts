import 'reflect-metadata';
import { Injectable, Module, Scope, type Provider } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createLogger } from '@berth/logger';
import { CronProcessor } from '../decorators/cron-processor.decorator';
import { getMessageQueueToken } from '../decorators/inject-message-queue.decorator';
import { Process } from '../decorators/process.decorator';
import { Processor } from '../decorators/processor.decorator';
import { MessageQueueModule } from '../message-queue.module';
import type { MessageQueueService } from '../message-queue.service';
import { JobRegistry } from './job-registry';

const logger = createLogger({ service: 'explorer-test', level: 'silent' });

async function boot(providers: Provider[], queues: string[] = ['q']) {
  @Module({ providers })
  class Feature {}
  @Module({ imports: [MessageQueueModule.forRoot({ driver: 'sync', logger, queues }), Feature] })
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
    expect(registry.crons()).toEqual([{ name: 'TenMinutesCron', pattern: '*/10 * * * *', timeZone: 'Europe/Paris', queue: 'cron-queue', className: 'TenMinutesCron' }]);
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
    await expect(boot([OnUndeclaredQueue])).rejects.toThrow('OnUndeclaredQueue is on queue undeclared, which MessageQueueModule.forRoot({ queues }) does not declare');

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
      imports: [MessageQueueModule.forRootAsync({ queues: ['async-q'], imports: [LoggingModule], inject: ['LOGGER'], useFactory: (injected: typeof logger) => ({ driver: 'sync', logger: injected }) })],
      providers: [AsyncJob],
    })
    class Root {}
    const app = await NestFactory.createApplicationContext(Root, { logger: false });
    await app.get<MessageQueueService>(getMessageQueueToken('async-q')).add('AsyncJob', { n: 7 });
    expect(ran).toEqual([7]);
    await app.close();
  });
});
