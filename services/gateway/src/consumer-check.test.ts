import { defaultToolsBinDir } from '@berth/local-infra';
import { ensureConsumer } from '@berth/messaging';
import type { ProviderConfig } from './config';
import { waitForProviderConsumers } from './consumer-check';
import { quietLogger, startNatsFixture, type NatsFixture } from './test-harness';

const natsBinDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);

const provider = (name: string, storeOnly = false): ProviderConfig => ({
  name,
  scheme: 'preset',
  preset: 'github',
  secrets: ['x'.repeat(20)],
  eventTypes: { kind: 'all' },
  idField: 'id',
  typeField: 'type',
  storeOnly,
});

describe('the start-up check for consumers', () => {
  let nats: NatsFixture;
  beforeAll(async () => {
    nats = await startNatsFixture(natsBinDir);
  });
  afterAll(async () => {
    await nats?.close();
  });

  it('refuses, naming the provider, when no durable consumer reads a provider that is not store-only', async () => {
    const check = waitForProviderConsumers({
      jsm: nats.messaging.jsm,
      providers: [provider('orphan'), provider('archive', true)],
      waitMs: 300,
      intervalMs: 50,
      logger: quietLogger(),
    });
    await expect(check).rejects.toThrow(
      /No consumer reads the events of orphan: start the worker .* or store them only \(WEBHOOK_STORE_ONLY_PROVIDERS/,
    );
  });

  it('waits for a worker that starts after the gateway, and a consumer of only some types does not count', async () => {
    await ensureConsumer(nats.messaging.jsm, {
      stream: 'WEBHOOKS',
      durable: 'partial',
      filterSubjects: ['webhooks.late.push'],
      ackWaitMs: 30_000,
    });
    const check = waitForProviderConsumers({
      jsm: nats.messaging.jsm,
      providers: [provider('late')],
      waitMs: 20_000,
      intervalMs: 50,
      logger: quietLogger(),
    });
    let settled = false;
    void check.then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
    await ensureConsumer(nats.messaging.jsm, {
      stream: 'WEBHOOKS',
      durable: 'webhooks-late',
      filterSubjects: ['webhooks.late.>'],
      ackWaitMs: 30_000,
    });
    await expect(check).resolves.toBeUndefined();
  });
});
