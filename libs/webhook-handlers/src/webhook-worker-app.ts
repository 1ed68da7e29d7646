import type { DynamicModule, INestApplicationContext, LoggerService, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { WebhookDriver } from './drivers/webhook-driver';
import { WEBHOOK_DRIVER } from './webhooks-module-options';

/** A worker application built now and started by `listen()`: its webhook consumers start pulling then. */
export interface WebhookWorkerApp {
  /** Creates the Nest application context: finds the handlers, provisions the consumers and starts pulling. */
  listen(): Promise<void>;
  /** Stops pulling, lets running handlers finish (the module's grace period), and closes the application. */
  close(): Promise<void>;
  /** Whether the application is listening and every webhook consumer it started is still pulling. */
  healthy(): boolean;
  /** A provider of the started application. */
  get<T>(token: Type<T> | string | symbol): T;
}

/**
 * The application of a service whose only work is webhook handlers (billing-sync, identity-sync): a Nest
 * application context, created (and so started) by `listen()`, closed by `close()`.
 */
export function webhookWorkerApp(module: DynamicModule, logger: LoggerService): WebhookWorkerApp {
  let context: INestApplicationContext | undefined;
  return {
    async listen() {
      if (context) return;
      context = await NestFactory.createApplicationContext(module, { logger });
    },
    async close() {
      const closing = context;
      context = undefined;
      await closing?.close();
    },
    healthy() {
      return context !== undefined && context.get<WebhookDriver>(WEBHOOK_DRIVER).healthy();
    },
    get<T>(token: Type<T> | string | symbol): T {
      if (!context) throw new Error('The application is not listening yet');
      return context.get<T>(token);
    },
  };
}
