import { Module, type DynamicModule, type FactoryProvider, type ModuleMetadata, type Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { getMessageQueueToken } from './decorators/inject-message-queue.decorator';
import { JobRegistry } from './discovery/job-registry';
import { JetStreamQueueDriver } from './drivers/jetstream/jetstream-queue-driver';
import type { QueueDriver } from './drivers/queue-driver';
import { InMemoryDeadLetters } from './drivers/sync/in-memory-dead-letters';
import { SyncQueueDriver } from './drivers/sync/sync-queue-driver';
import { resolveQueueOptions, type ResolvedQueueOptions } from './job-options';
import { MessageQueueService } from './message-queue.service';
import { MessageQueueRuntime } from './message-queue.runtime';
import {
  MESSAGE_QUEUE_DRIVER,
  MESSAGE_QUEUE_MODULE_OPTIONS,
  MESSAGE_QUEUE_NAMES_TOKEN,
  type MessageQueueModuleOptions,
} from './message-queue-options';
import { assertQueueName, CRON_QUEUE_NAME } from './names';

/** Options of `MessageQueueModule.forRootAsync`: queue names up front (they are injection tokens), the rest from a factory. */
export interface MessageQueueModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  queues: readonly string[];
  inject?: FactoryProvider['inject'];
  useFactory: (...args: never[]) => MessageQueueModuleOptions | Promise<MessageQueueModuleOptions>;
}

/**
 * The message queue: import it once, in the root module of a service, with the queue names the service uses
 * (`cron-queue` is always there). Every `@Processor` and `@CronProcessor` class among the providers of the
 * imported modules is found at start-up; `@InjectMessageQueue(name)` gives a queue's `MessageQueueService`.
 */
@Module({})
export class MessageQueueModule {
  /** Configures the module with options known when the module is built. */
  static forRoot(options: MessageQueueModuleOptions & { queues: readonly string[] }): DynamicModule {
    return MessageQueueModule.build(options.queues, { provide: MESSAGE_QUEUE_MODULE_OPTIONS, useValue: options }, []);
  }

  /** Configures the module from a factory (a config service, a connection made by another provider). */
  static forRootAsync(options: MessageQueueModuleAsyncOptions): DynamicModule {
    return MessageQueueModule.build(
      options.queues,
      { provide: MESSAGE_QUEUE_MODULE_OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] },
      options.imports ?? [],
    );
  }

  private static build(
    queues: readonly string[],
    optionsProvider: Provider,
    imports: NonNullable<ModuleMetadata['imports']>,
  ): DynamicModule {
    const names = [...new Set([CRON_QUEUE_NAME, ...queues])];
    names.forEach(assertQueueName);
    const queueProviders: Provider[] = names.map((queueName) => ({
      provide: getMessageQueueToken(queueName),
      useFactory: (driver: QueueDriver) => new MessageQueueService(queueName, driver),
      inject: [MESSAGE_QUEUE_DRIVER],
    }));
    return {
      module: MessageQueueModule,
      global: true,
      imports: [DiscoveryModule, ...imports],
      providers: [
        optionsProvider,
        { provide: MESSAGE_QUEUE_NAMES_TOKEN, useValue: names },
        { provide: JobRegistry, useFactory: () => new JobRegistry() },
        { provide: InMemoryDeadLetters, useFactory: () => new InMemoryDeadLetters() },
        {
          provide: MESSAGE_QUEUE_DRIVER,
          useFactory: createDriver,
          inject: [MESSAGE_QUEUE_MODULE_OPTIONS, JobRegistry, InMemoryDeadLetters],
        },
        MessageQueueRuntime,
        ...queueProviders,
      ],
      exports: [
        JobRegistry,
        InMemoryDeadLetters,
        MESSAGE_QUEUE_DRIVER,
        ...queueProviders.map((provider) => (provider as FactoryProvider).provide),
      ],
    };
  }
}

function createDriver(
  options: MessageQueueModuleOptions,
  registry: JobRegistry,
  deadLetters: InMemoryDeadLetters,
): QueueDriver {
  const settings = new Map<string, ResolvedQueueOptions>();
  const settingsOf = (queue: string): ResolvedQueueOptions => {
    let resolved = settings.get(queue);
    if (!resolved)
      settings.set(queue, (resolved = resolveQueueOptions(options.defaults, options.queueOptions?.[queue])));
    return resolved;
  };
  if (options.driver === 'sync') {
    return new SyncQueueDriver({
      registry,
      deadLetters,
      settingsOf,
      logger: options.logger,
      logContext: options.logContext,
      observer: options.observer,
      clock: options.clock,
    });
  }
  if (options.driver !== 'jetstream')
    throw new Error(`Unknown message queue driver ${JSON.stringify(options.driver)} (jetstream or sync)`);
  if (!options.messaging)
    throw new Error('MessageQueueModule: the jetstream driver needs `messaging` (connectMessaging)');
  return new JetStreamQueueDriver({
    messaging: options.messaging,
    logger: options.logger,
    logContext: options.logContext,
    settingsOf,
    consume: options.consume,
    batching: options.batching,
    infrastructure: options.infrastructure,
    random: options.random,
    observer: options.observer,
    clock: options.clock,
  });
}
