import { waitFor } from '@berth/local-infra/testing';
import type { INestApplicationContext } from '@nestjs/common';
import {
  Process,
  Processor,
  getMessageQueueToken,
  provisionJobInfrastructure,
  type MessageQueueService,
} from '@berth/jobs';
import { captureLogs, deferred, startNats, uniqueQueue, waitForQueueSettled, type NatsFixture } from './support/infra';
import { createJobsApp } from './support/jobs-app';

const logs = captureLogs('warn');
let nats: NatsFixture;
let app: INestApplicationContext;
const queue = uniqueQueue('dedup');
const CLAIM_TTL_MS = 1000;

const runs = new Map<string, number>();
const gates = new Map<string, Promise<void>>();

type GatedData = { key: string };

@Processor({ queueName: queue })
class GatedJob {
  @Process(GatedJob.name)
  async handle({ key }: GatedData): Promise<void> {
    runs.set(key, (runs.get(key) ?? 0) + 1);
    await gates.get(key);
  }
}

beforeAll(async () => {
  nats = await startNats(logs.logger);
  app = await createJobsApp({
    messaging: nats.messaging,
    logger: logs.logger,
    logContext: logs.logContext,
    queues: [queue],
    providers: [GatedJob],
    infrastructure: { deduplication: { claimTtlMs: CLAIM_TTL_MS } },
  });
});
afterAll(async () => {
  await app?.close();
  await nats?.stop();
});

const queueService = () => app.get<MessageQueueService>(getMessageQueueToken(queue));

describe('deduplicationId (JetStream KV)', () => {
  it('queues one job for 50 concurrent adds with one id, and a new one once it has finished', async () => {
    const gate = deferred();
    gates.set('ws-1', gate.promise);
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        queueService().add<GatedData>(GatedJob.name, { key: 'ws-1' }, { deduplicationId: 'workspace-1' }),
      ),
    );
    expect(results.filter((result) => !result.deduplicated)).toHaveLength(1);
    expect(new Set(results.map((result) => result.id)).size).toBe(1);

    // While the job runs, adding another does nothing.
    await waitFor(() => runs.get('ws-1') === 1, { what: 'the job to start', timeoutMs: 5000 });
    expect(
      await queueService().add<GatedData>(GatedJob.name, { key: 'ws-1' }, { deduplicationId: 'workspace-1' }),
    ).toEqual({ id: results[0].id, deduplicated: true });
    gate.resolve();

    // Once it completed, the id is free: a new job is queued and runs.
    const next = await waitFor(
      async () => {
        const added = await queueService().add<GatedData>(
          GatedJob.name,
          { key: 'ws-1' },
          { deduplicationId: 'workspace-1' },
        );
        return added.deduplicated ? undefined : added;
      },
      { what: 'the id to be released', timeoutMs: 5000 },
    );
    expect(next.id).not.toBe(results[0].id);
    await waitFor(() => runs.get('ws-1') === 2, { what: 'the second job to run', timeoutMs: 5000 });
    await waitForQueueSettled(nats.messaging, queue);
    expect(runs.get('ws-1')).toBe(2);
  });

  it('keeps different ids apart', async () => {
    const a = await queueService().add<GatedData>(GatedJob.name, { key: 'a' }, { deduplicationId: 'id-a' });
    const b = await queueService().add<GatedData>(GatedJob.name, { key: 'b' }, { deduplicationId: 'id-b' });
    expect(a.deduplicated || b.deduplicated).toBe(false);
    await waitFor(() => runs.get('a') === 1 && runs.get('b') === 1, { what: 'both jobs', timeoutMs: 5000 });
  });

  it('never answers "deduplicated" for a claim whose job was not stored: an add waits it out and queues the job', async () => {
    // A producer that claimed the id and then could not store the job nor free the claim (it died, or its node froze).
    const { deduplication } = await provisionJobInfrastructure(nats.messaging, {
      provisionStreams: false,
      deduplication: { claimTtlMs: CLAIM_TTL_MS },
    });
    const orphan = await deduplication.claim(queue, 'ghost', 'job-that-never-was');
    expect(orphan.claimed).toBe(true);
    const added = await queueService().add<GatedData>(GatedJob.name, { key: 'ghost' }, { deduplicationId: 'ghost' });
    expect(added.deduplicated).toBe(false);
    expect(added.id).not.toBe('job-that-never-was');
    await waitFor(() => runs.get('ghost') === 1, { what: 'the job to run', timeoutMs: 5000 });
  });

  it('replaces an entry whose job message is gone (acked while its release failed)', async () => {
    const { deduplication } = await provisionJobInfrastructure(nats.messaging, { provisionStreams: false });
    const stale = await deduplication.claim(queue, 'stale', 'finished-job');
    if (!stale.claimed) throw new Error('expected a claim');
    await deduplication.confirm(stale.claim, { stream: 'JOBS', seq: 987654321, scheduled: false });
    const added = await queueService().add<GatedData>(GatedJob.name, { key: 'stale' }, { deduplicationId: 'stale' });
    expect(added.deduplicated).toBe(false);
    await waitFor(() => runs.get('stale') === 1, { what: 'the job to run', timeoutMs: 5000 });
  });

  it('holds the id of a delayed job until it has run', async () => {
    const first = await queueService().add<GatedData>(
      GatedJob.name,
      { key: 'later' },
      { deduplicationId: 'later', delayInMilliseconds: 700 },
    );
    expect(await queueService().add<GatedData>(GatedJob.name, { key: 'later' }, { deduplicationId: 'later' })).toEqual({
      id: first.id,
      deduplicated: true,
    });
    await waitFor(() => runs.get('later') === 1, { what: 'the delayed job to run', timeoutMs: 5000 });
    const again = await waitFor(
      async () => {
        const result = await queueService().add<GatedData>(
          GatedJob.name,
          { key: 'later' },
          { deduplicationId: 'later' },
        );
        return result.deduplicated ? undefined : result;
      },
      { what: 'the id to be released', timeoutMs: 5000 },
    );
    expect(again.id).not.toBe(first.id);
  });
});
