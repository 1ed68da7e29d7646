import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MongoClient } from 'mongodb';
import { createLogger } from '@berth/logger';
import { consumerCoversProvider } from '@berth/messaging';
import { OnWebhook, WebhookProcessor, WebhookRegistry, WebhooksModule } from './index';

// Never connected: the sync driver only names the inbox collections until an event is delivered.
const db = new MongoClient('mongodb://127.0.0.1:1').db('unused');
const logger = createLogger({ service: 'test', level: 'silent' });

async function boot(providers: (abstract new (...args: never[]) => unknown)[], requiredProviders?: string[]) {
  @Module({ providers: providers as never[] })
  class Feature {}
  return NestFactory.createApplicationContext(
    {
      module: class Root {},
      imports: [WebhooksModule.forRoot({ driver: 'sync', db, logger, requiredProviders }), Feature],
    },
    { logger: false, abortOnError: false },
  );
}

@WebhookProcessor({ provider: 'github' })
class PullRequests {
  @OnWebhook('pull_request.opened') async opened(): Promise<void> {}
  @OnWebhook(['issues.opened', 'issues.closed']) async issues(): Promise<void> {}
  @OnWebhook('*') async everything(): Promise<void> {}
}

describe('WebhooksModule discovery', () => {
  it('registers every @OnWebhook method of every @WebhookProcessor, and picks the handlers of a type', async () => {
    const app = await boot([PullRequests]);
    const registry = app.get(WebhookRegistry);
    expect(registry.providers()).toEqual(['github']);
    expect(registry.handlersFor('github', 'pull_request.opened').map((handler) => handler.name)).toEqual([
      'PullRequests.opened',
      'PullRequests.everything',
    ]);
    expect(registry.handlersFor('github', 'issues.closed').map((handler) => handler.name)).toEqual([
      'PullRequests.issues',
      'PullRequests.everything',
    ]);
    expect(registry.handlersFor('stripe', 'issues.closed')).toEqual([]);
    await app.close();
  });

  it('refuses to start on a processor without @OnWebhook, a provider name the gateway cannot have, or a required provider nobody handles', async () => {
    @WebhookProcessor({ provider: 'github' })
    class Empty {}
    @WebhookProcessor({ provider: 'Git Hub' })
    class BadName {
      @OnWebhook('*') async any(): Promise<void> {}
    }
    await expect(boot([Empty])).rejects.toThrow("Empty has @WebhookProcessor but no @OnWebhook('<type>') method");
    await expect(boot([BadName])).rejects.toThrow(/BadName: provider "Git Hub" is not a provider name/);
    await expect(boot([PullRequests], ['github', 'stripe'])).rejects.toThrow('No @WebhookProcessor handles stripe');
  });
});

describe('consumerCoversProvider', () => {
  it.each([
    [['webhooks.github.>'], true],
    [['webhooks.*.>'], true],
    [['webhooks.>'], true],
    [['>'], true],
    [['jobs.>', 'webhooks.github.>'], true],
    [['webhooks.github.push'], false],
    [['webhooks.github.*'], false],
    [['webhooks.gitlab.>'], false],
    [['webhooks.github.pull_request.>'], false],
    [[], false],
  ])('%j covers github: %s', (filters, covers) => {
    expect(consumerCoversProvider(filters, 'github')).toBe(covers);
  });
});
