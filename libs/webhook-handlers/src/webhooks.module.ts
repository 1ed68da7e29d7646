import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { systemClock } from '@berth/contract';
import { WebhookRegistry } from './discovery/webhook-registry';
import { JetStreamWebhookDriver } from './drivers/jetstream-webhook-driver';
import { SyncWebhookDriver } from './drivers/sync-webhook-driver';
import type { WebhookDriver } from './drivers/webhook-driver';
import { WEBHOOK_DRIVER, WEBHOOKS_MODULE_OPTIONS, type WebhooksModuleOptions } from './webhooks-module-options';
import { WebhooksRuntime } from './webhooks.runtime';

/** A replica id unique across hosts and restarts. */
function defaultOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/**
 * Webhook handlers: import it once, in the root module of a worker. Every `@WebhookProcessor` class among the
 * providers of the imported modules is found at start-up; each provider with a handler gets its durable consumer
 * (`jetstream`), or `SyncWebhookDriver.deliver` runs the handlers in-process (`sync`).
 */
@Module({})
export class WebhooksModule {
  static forRoot(options: WebhooksModuleOptions): DynamicModule {
    return {
      module: WebhooksModule,
      global: true,
      imports: [DiscoveryModule],
      providers: [
        { provide: WEBHOOKS_MODULE_OPTIONS, useValue: options },
        { provide: WebhookRegistry, useFactory: () => new WebhookRegistry() },
        { provide: WEBHOOK_DRIVER, useFactory: () => createDriver(options) },
        {
          provide: SyncWebhookDriver,
          useFactory: (driver: WebhookDriver) => (driver instanceof SyncWebhookDriver ? driver : null),
          inject: [WEBHOOK_DRIVER],
        },
        WebhooksRuntime,
      ],
      exports: [WebhookRegistry, WEBHOOK_DRIVER, SyncWebhookDriver],
    };
  }
}

function createDriver(options: WebhooksModuleOptions): WebhookDriver {
  const resolved = { ...options, owner: options.owner ?? defaultOwner(), clock: options.clock ?? systemClock };
  if (options.driver === 'sync') return new SyncWebhookDriver(resolved);
  if (options.driver !== 'jetstream')
    throw new Error(`Unknown webhook driver ${JSON.stringify(options.driver)} (jetstream or sync)`);
  if (!options.messaging) throw new Error('WebhooksModule: the jetstream driver needs `messaging` (connectMessaging)');
  return new JetStreamWebhookDriver({ ...resolved, messaging: options.messaging });
}
