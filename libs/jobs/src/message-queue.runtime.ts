import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnModuleInit,
} from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { exploreJobs } from './discovery/job-explorer';
import { JobRegistry } from './discovery/job-registry';
import type { QueueDriver } from './drivers/queue-driver';
import {
  MESSAGE_QUEUE_DRIVER,
  MESSAGE_QUEUE_MODULE_OPTIONS,
  MESSAGE_QUEUE_NAMES_TOKEN,
  type MessageQueueModuleOptions,
} from './message-queue-options';

/**
 * The module's life: at module init, discovers the jobs and crons among the application's providers; once the
 * application is bootstrapped, starts the workers; before shutdown, stops taking jobs and lets running ones
 * finish within the grace period.
 */
@Injectable()
export class MessageQueueRuntime implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly discovery: DiscoveryService,
    @Inject(JobRegistry) private readonly registry: JobRegistry,
    @Inject(MESSAGE_QUEUE_DRIVER) private readonly driver: QueueDriver,
    @Inject(MESSAGE_QUEUE_MODULE_OPTIONS) private readonly options: MessageQueueModuleOptions,
    @Inject(MESSAGE_QUEUE_NAMES_TOKEN) private readonly queueNames: readonly string[],
  ) {}

  onModuleInit(): void {
    exploreJobs(
      this.discovery,
      this.registry,
      new Set(this.queueNames),
      this.options.logger,
      this.options.cronRunGuard,
      this.options.clock,
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.driver.start(this.registry);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.driver.stop(this.options.shutdownGraceMs ?? 25000);
  }
}
