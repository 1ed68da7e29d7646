import 'reflect-metadata';
import { Module, type Provider } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createLogger } from '@berth/logger';
import { getMessageQueueToken } from '../decorators/inject-message-queue.decorator';
import { Process } from '../decorators/process.decorator';
import { Processor } from '../decorators/processor.decorator';
import { BatchJobError } from '../errors';
import { MessageQueueModule } from '../message-queue.module';
import type { MessageQueueService } from '../message-queue.service';
import type { BatchJob } from './job-registry';

const logger = createLogger({ service: 'batch-registration-test', level: 'silent' });

async function boot(providers: Provider[]) {
  @Module({ providers })
  class Feature {}
  @Module({ imports: [MessageQueueModule.forRoot({ driver: 'sync', logger, queues: ['q'] }), Feature] })
  class Root {}
  return NestFactory.createApplicationContext(Root, { logger: false, abortOnError: false });
}

describe('batch handlers: registration and the sync driver', () => {
  it('refuses a batch handler with per-key concurrency or rate limit, and a bad size or wait', async () => {
    @Processor({ queueName: 'q' })
    class Keyed {
      @Process('Keyed', { batch: { size: 10, waitMs: 50 }, concurrency: { key: () => 'k', limit: 1 } })
      async handle() {}
    }
    await expect(boot([Keyed])).rejects.toThrow(/batch handler takes no concurrency or rateLimit/);
    @Processor({ queueName: 'q' })
    class Zero {
      @Process('Zero', { batch: { size: 0, waitMs: 50 } })
      async handle() {}
    }
    await expect(boot([Zero])).rejects.toThrow(/batch.size must be an integer from 1 to 1000, got 0/);
    @Processor({ queueName: 'q' })
    class Forever {
      @Process('Forever', { batch: { size: 5, waitMs: -1 } })
      async handle() {}
    }
    await expect(boot([Forever])).rejects.toThrow(/batch.waitMs must be from 0 to 60000 ms/);
  });

  it('hands batches of one with the sync driver; a BatchJobError listing the job fails it and it is retried', async () => {
    const calls: BatchJob<{ n: number }>[][] = [];
    @Processor({ queueName: 'q' })
    class Batched {
      @Process('Batched', { batch: { size: 10, waitMs: 50 } })
      async handle(jobs: BatchJob<{ n: number }>[]) {
        calls.push(jobs);
        const failing = jobs.filter((job) => job.data.n === 2 && job.attempt === 1);
        if (failing.length > 0)
          throw new BatchJobError(failing.map((job) => ({ jobId: job.id, error: new Error('x') })));
      }
    }
    const app = await boot([Batched]);
    const queue = app.get<MessageQueueService>(getMessageQueueToken('q'));
    await queue.add('Batched', { n: 1 });
    await queue.add('Batched', { n: 2 });
    expect(calls.map((jobs) => jobs.map((job) => [job.data.n, job.attempt]))).toEqual([[[1, 1]], [[2, 1]], [[2, 2]]]);
    await app.close();
  });
});
