import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  getMessageQueueToken,
  JOBS_STREAM_NAME,
  MessageQueueModule,
  PRIORITY_LEVELS,
  priorityConsumerName,
  Process,
  Processor,
  queueConsumerName,
  type BatchingOptions,
  type MessageQueueService,
} from '@berth/jobs';
import type { BerthLogger } from '@berth/logger';
import type { Messaging } from '@berth/messaging';
import { addAll } from './add-all';

/** One timed run of Berth: add `jobs` jobs (window of concurrent adds) to a fresh queue, until all are done. */
export interface BerthRoundOptions {
  messaging: Messaging;
  logger: BerthLogger;
  queue: string;
  concurrency: number;
  jobs: number;
  addWindow: number;
  batching?: BatchingOptions;
  /**
   * Per-key concurrency: job i belongs to workspace `i % keys`, at most `limit` of a workspace run at once. Declared
   * on `@Process`, or with `atAdd` given to `add` (fair by default, or with `fair: false`).
   */
  keyed?: { keys: number; limit: number; atAdd?: 'fair' | 'unfair' };
  /** Per-key rate limit: job i belongs to workspace `i % keys`, at most `limit` of a workspace start per `perMs`. */
  rateLimited?: { keys: number; limit: number; perMs: number };
  /** Priorities: the queue serves them (`queue`), and job i has priority `i % 10 + 1` (`every-job`, every band). */
  prioritized?: 'queue' | 'every-job';
}

/**
 * Jobs per second from the first `add` to the last job completed and acknowledged: the handler is empty; the end
 * is when every handler ran and the queue's consumer holds nothing (every ack applied by the server, which with
 * work-queue retention means every job's message is deleted, fsynced).
 */
export async function runBerthRound(options: BerthRoundOptions): Promise<number> {
  let done = 0;
  let allDone!: () => void;
  const finished = new Promise<void>((resolve) => (allDone = resolve));

  const workspaceOf = (data: { workspaceId: string }): string => data.workspaceId;
  const processOptions =
    options.keyed && !options.keyed.atAdd
      ? { concurrency: { key: workspaceOf, limit: options.keyed.limit } }
      : options.rateLimited
        ? { rateLimit: { key: workspaceOf, limit: options.rateLimited.limit, perMs: options.rateLimited.perMs } }
        : {};
  @Processor({ queueName: options.queue })
  class EmptyJob {
    @Process(EmptyJob.name, processOptions)
    async handle(): Promise<void> {
      done += 1;
      if (done === options.jobs) allDone();
    }
  }
  @Module({
    imports: [
      MessageQueueModule.forRoot({
        driver: 'jetstream',
        messaging: options.messaging,
        logger: options.logger,
        queues: [options.queue],
        defaults: {
          concurrency: options.concurrency,
          maxAckPending: 10000,
          priorities: options.prioritized !== undefined,
        },
        batching: options.batching,
      }),
    ],
    providers: [EmptyJob],
  })
  class BenchModule {}

  const app = await NestFactory.createApplicationContext(BenchModule, { logger: false });
  const queue = app.get<MessageQueueService>(getMessageQueueToken(options.queue));
  const started = performance.now();
  const keys = options.keyed?.keys ?? options.rateLimited?.keys;
  const { keyed } = options;
  await addAll(options.jobs, options.addWindow, (index) =>
    queue.add(
      EmptyJob.name,
      keys ? { workspaceId: `ws_${index % keys}` } : {},
      options.prioritized === 'every-job'
        ? { priority: (index % PRIORITY_LEVELS) + 1 }
        : keyed?.atAdd
          ? {
              concurrency: { key: `ws_${index % keyed.keys}`, limit: keyed.limit },
              ...(keyed.atAdd === 'unfair' ? { fair: false as const } : {}),
            }
          : undefined,
    ),
  );
  await finished;
  const consumers = [
    queueConsumerName(options.queue),
    ...(options.prioritized
      ? Array.from({ length: PRIORITY_LEVELS }, (_, n) => priorityConsumerName(options.queue, n + 1))
      : []),
  ];
  for (const consumer of consumers) {
    for (;;) {
      const info = await options.messaging.jsm.consumers.info(JOBS_STREAM_NAME, consumer);
      if (info.num_ack_pending === 0 && info.num_pending === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
  const elapsedMs = performance.now() - started;
  await app.close();
  for (const consumer of consumers)
    await options.messaging.jsm.consumers.delete(JOBS_STREAM_NAME, consumer).catch(() => undefined);
  await options.messaging.jsm.consumers.delete('JOBS_DELAYED', queueConsumerName(options.queue)).catch(() => undefined);
  return (options.jobs / elapsedMs) * 1000;
}
