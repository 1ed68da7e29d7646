import { ManualClock } from '@berth/contract/testing';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { MongoClient, type Db } from 'mongodb';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { SyncWebhookDriver, WebhooksModule } from '@berth/webhook-handlers';
import { DatabaseModule } from '../database/database.module';
import { GithubModule } from './github.module';
import { pullRequestsCollection } from './pull-requests.collections';

const binDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);
const NOW = new Date('2030-01-01T00:00:00Z');
let ferret: FerretDbHandle;
let mongo: MongoClient;
let db: Db;
let app: INestApplicationContext;

beforeAll(async () => {
  ferret = await startFerretDb({ binDir });
  mongo = await MongoClient.connect(ferret.url);
  db = mongo.db(`app_worker_github_${process.pid}`);
  const logger = createLogger({ service: 'test', level: 'silent' });
  app = await NestFactory.createApplicationContext(
    {
      module: class TestRoot {},
      imports: [
        DatabaseModule.register(db, new ManualClock(NOW)),
        WebhooksModule.forRoot({ driver: 'sync', db, logger }),
        GithubModule,
      ],
    },
    { logger: false },
  );
});

afterAll(async () => {
  await app?.close();
  await mongo?.close();
  await ferret?.stop();
});

const pullRequest = (action: string, title: string) => ({
  action,
  number: 12,
  pull_request: { title, user: { login: 'octocat' } },
  repository: { full_name: 'berth/berth' },
});

describe('PullRequestOpenedWebhook', () => {
  it('writes one document per pull request, whatever the number of deliveries', async () => {
    const driver = app.get(SyncWebhookDriver);
    await driver.deliver({
      provider: 'github',
      id: 'delivery-1',
      type: 'pull_request.opened',
      body: pullRequest('opened', 'Add handlers'),
    });
    await driver.deliver({
      provider: 'github',
      id: 'delivery-1',
      type: 'pull_request.opened',
      body: pullRequest('opened', 'Add handlers'),
    });
    await driver.deliver({
      provider: 'github',
      id: 'delivery-2',
      type: 'pull_request.reopened',
      body: pullRequest('reopened', 'Add handlers, again'),
    });
    expect(await pullRequestsCollection(db).find().toArray()).toEqual([
      {
        _id: 'berth/berth#12',
        repository: 'berth/berth',
        number: 12,
        title: 'Add handlers, again',
        author: 'octocat',
        lastAction: 'reopened',
        lastDeliveryId: 'delivery-2',
        updatedAt: NOW,
      },
    ]);
  });

  it('sets aside a delivery that names no repository: retrying cannot help', async () => {
    await expect(
      app.get(SyncWebhookDriver).deliver({
        provider: 'github',
        id: 'delivery-3',
        type: 'pull_request.opened',
        body: { action: 'opened', number: 1 },
      }),
    ).rejects.toThrow(/names no repository/);
  });
});
