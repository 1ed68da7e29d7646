import 'reflect-metadata';
import { Module, type INestApplicationContext, type Provider } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessageQueueModule, type MessageQueueModuleOptions } from '@berth/jobs';

/** Options for {@link createJobsApp}. */
export interface JobsAppOptions extends Partial<MessageQueueModuleOptions> {
  logger: MessageQueueModuleOptions['logger'];
  queues: string[];
  /** The processors (and whatever they inject) of this app. */
  providers: Provider[];
}

/** A Nest application context with the message queue and the given providers, initialised (workers started). */
export async function createJobsApp(options: JobsAppOptions): Promise<INestApplicationContext> {
  const { providers, queues, ...moduleOptions } = options;
  @Module({ providers })
  class FeatureModule {}
  @Module({ imports: [MessageQueueModule.forRoot({ driver: 'jetstream', queues, ...moduleOptions }), FeatureModule] })
  class AppModule {}
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  await app.init();
  return app;
}
