import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnModuleInit,
} from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { exploreWebhookProcessors } from './discovery/explore-webhook-processors';
import { WebhookRegistry } from './discovery/webhook-registry';
import type { WebhookDriver } from './drivers/webhook-driver';
import { WEBHOOK_DRIVER, WEBHOOKS_MODULE_OPTIONS, type WebhooksModuleOptions } from './webhooks-module-options';

/**
 * The module's life: at module init, finds the `@WebhookProcessor` classes (and checks the required providers
 * have one); once the application is bootstrapped, starts consuming; before shutdown, stops taking events and lets
 * running handlers finish within the grace period.
 */
@Injectable()
export class WebhooksRuntime implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly discovery: DiscoveryService,
    @Inject(WebhookRegistry) private readonly registry: WebhookRegistry,
    @Inject(WEBHOOK_DRIVER) private readonly driver: WebhookDriver,
    @Inject(WEBHOOKS_MODULE_OPTIONS) private readonly options: WebhooksModuleOptions,
  ) {}

  onModuleInit(): void {
    exploreWebhookProcessors(this.discovery, this.registry, this.options.logger);
    const missing = (this.options.requiredProviders ?? []).filter(
      (provider) => this.registry.handlersOf(provider).length === 0,
    );
    if (missing.length > 0)
      throw new Error(`No @WebhookProcessor handles ${missing.join(', ')}: import the module that holds it`);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.driver.start(this.registry);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.driver.stop(this.options.shutdownGraceMs ?? 25_000);
  }
}
