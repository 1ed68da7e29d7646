import { defaultToolsBinDir } from '@berth/local-infra';
import { ensureConsumer } from '@berth/messaging';
import type { ProviderConfig } from './config';
import { waitForProviderConsumers } from './consumer-check';
import { capturingLogger, quietLogger, startNatsFixture, type NatsFixture } from './test-harness';
import { waitFor } from '@berth/local-infra/testing';

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
    const log = capturingLogger();
    const check = waitForProviderConsumers({
      jsm: nats.messaging.jsm,
      providers: [provider('late')],
      waitMs: 20_000,
      intervalMs: 50,
      logger: log.logger,
    });
    let settled = false;
    void check.then(
      () => (settled = true),
      () => (settled = true),
    );
    // The check logs that it waits once it has looked at the consumers and found the partial one wanting.
    await waitFor(() => log.lines.some((line) => line.includes('Waiting for a consumer of late')), {
      what: 'the check to log that it waits for a consumer of late',
    });
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
