import { ManualClock } from '@berth/contract/testing';
import { Registry } from 'prom-client';
import {
  cachedRead,
  createJobMetrics,
  createMetricsRegistry,
  createQueueDepthMetric,
  createWebhookBacklogMetrics,
  jetStreamConsumerDepths,
  startHealthServer,
  type QueueDepthReading,
} from './index';
import { parsePrometheusText, sampleValue } from './testing';

describe('createJobMetrics', () => {
  it('counts runs by outcome and observes their duration, with the series of declared queues at 0 from the start', async () => {
    const registry = new Registry();
    const jobs = createJobMetrics(registry, { consumes: ['billing-sync'], produces: ['billing'] });
    let text = await registry.metrics();
    expect(sampleValue(text, 'job_completed_total', { queue: 'billing-sync', outcome: 'completed' })).toBe(0);
    expect(sampleValue(text, 'job_completed_total', { queue: 'billing-sync', outcome: 'dead_lettered' })).toBe(0);
    expect(sampleValue(text, 'job_enqueued_total', { queue: 'billing' })).toBe(0);
    expect(sampleValue(text, 'job_duration_seconds_count', { queue: 'billing-sync' })).toBe(0);

    const seen: string[] = [];
    const onOutcome = jobs.outcomeRecorder<string>('billing-sync', (message, outcome) =>
      seen.push(`${message}:${outcome}`),
    );
    onOutcome('a', 'acked', 20);
    onOutcome('b', 'acked', 2000);
    onOutcome('c', 'retried', 5);
    onOutcome('d', 'terminated', 5);
    jobs.enqueued('billing', 3);
    jobs.enqueued('billing');
    jobs.enqueued('other', 0);

    text = await registry.metrics();
    expect(sampleValue(text, 'job_completed_total', { queue: 'billing-sync', outcome: 'completed' })).toBe(2);
    expect(sampleValue(text, 'job_completed_total', { queue: 'billing-sync', outcome: 'failed' })).toBe(1);
    expect(sampleValue(text, 'job_completed_total', { queue: 'billing-sync', outcome: 'dead_lettered' })).toBe(1);
    expect(sampleValue(text, 'job_duration_seconds_count', { queue: 'billing-sync' })).toBe(4);
    expect(sampleValue(text, 'job_duration_seconds_sum', { queue: 'billing-sync' })).toBeCloseTo(2.03, 5);
    expect(sampleValue(text, 'job_duration_seconds_bucket', { queue: 'billing-sync', le: '0.025' })).toBe(3);
    expect(sampleValue(text, 'job_enqueued_total', { queue: 'billing' })).toBe(4);
    expect(sampleValue(text, 'job_enqueued_total', { queue: 'other' })).toBeUndefined();
    expect(seen).toEqual(['a:acked', 'b:acked', 'c:retried', 'd:terminated']);
  });

  it('shares the metrics when a producer and a worker of one process both create them', async () => {
    const registry = new Registry();
    createJobMetrics(registry, { produces: ['mail'] }).enqueued('mail');
    createJobMetrics(registry, { consumes: ['mail'] }).completed('mail', 'completed', 0.1);
    const text = await registry.metrics();
    expect(sampleValue(text, 'job_enqueued_total', { queue: 'mail' })).toBe(1);
    expect(sampleValue(text, 'job_completed_total', { queue: 'mail', outcome: 'completed' })).toBe(1);
  });
});

describe('createQueueDepthMetric', () => {
  it('reads depths at scrape time, at most once per cache period, and reports nothing (not stale numbers) when a read fails', async () => {
    const registry = new Registry();
    let reads = 0;
    let next: QueueDepthReading[] | Error = [{ queue: 'billing-sync', pending: 4, ackPending: 2, redelivered: 1 }];
    const warnings: string[] = [];
    createQueueDepthMetric(registry, {
      cacheMs: 60_000,
      read: async () => {
        reads += 1;
        if (next instanceof Error) throw next;
        return next;
      },
      logger: { warn: (_fields, message) => warnings.push(message) },
    });
    const [first, second] = await Promise.all([registry.metrics(), registry.metrics()]);
    expect(reads).toBe(1);
    expect(first).toBe(second);
    expect(sampleValue(first, 'queue_depth', { queue: 'billing-sync', state: 'pending' })).toBe(4);
    expect(sampleValue(first, 'queue_depth', { queue: 'billing-sync', state: 'ack_pending' })).toBe(2);
    expect(sampleValue(first, 'queue_depth', { queue: 'billing-sync', state: 'redelivered' })).toBe(1);

    const failing = new Registry();
    next = new Error('NATS is away');
    createQueueDepthMetric(failing, {
      read: async () => {
        throw next;
      },
      logger: { warn: (_fields, message) => warnings.push(message) },
    });
    expect(parsePrometheusText(await failing.metrics()).filter((sample) => sample.name === 'queue_depth')).toEqual([]);
    expect(warnings).toEqual(['Could not read queue depths for /metrics']);
  });

  it('reads JetStream consumer info into depths', async () => {
    const asked: string[] = [];
    const jsm = {
      consumers: {
        info: async (stream: string, consumer: string) => {
          asked.push(`${stream}/${consumer}`);
          return { num_pending: 7, num_ack_pending: 3, num_redelivered: 2, num_waiting: 1 };
        },
      },
    };
    const read = jetStreamConsumerDepths(jsm, [
      { queue: 'billing-sync', stream: 'WEBHOOKS', consumer: 'billing-sync' },
    ]);
    expect(await read()).toEqual([{ queue: 'billing-sync', pending: 7, ackPending: 3, redelivered: 2 }]);
    expect(asked).toEqual(['WEBHOOKS/billing-sync']);
  });
});

describe('createWebhookBacklogMetrics', () => {
  it('reports set-aside events and the age of the oldest unprocessed event, aging between cached reads', async () => {
    const registry = new Registry();
    const clock = new ManualClock('2026-01-01T00:10:00Z');
    let reads = 0;
    createWebhookBacklogMetrics(registry, {
      cacheMs: 60_000,
      clock,
      read: async () => {
        reads += 1;
        return [
          { provider: 'stripe', setAside: 2, oldestUnprocessedReceivedAt: new Date('2026-01-01T00:00:00Z') },
          { provider: 'clerk', setAside: 0, oldestUnprocessedReceivedAt: null },
        ];
      },
    });
    let text = await registry.metrics();
    expect(sampleValue(text, 'webhook_dlq_depth', { provider: 'stripe' })).toBe(2);
    expect(sampleValue(text, 'webhook_dlq_depth', { provider: 'clerk' })).toBe(0);
    expect(sampleValue(text, 'webhook_oldest_unprocessed_age_seconds', { provider: 'stripe' })).toBe(600);
    expect(sampleValue(text, 'webhook_oldest_unprocessed_age_seconds', { provider: 'clerk' })).toBe(0);
    clock.set('2026-01-01T00:11:00Z');
    text = await registry.metrics();
    expect(sampleValue(text, 'webhook_oldest_unprocessed_age_seconds', { provider: 'stripe' })).toBe(660);
    expect(reads).toBe(1);
  });
});

describe('cachedRead', () => {
  it('does not cache a failure', async () => {
    let calls = 0;
    const read = cachedRead(async () => {
      calls += 1;
      if (calls === 1) throw new Error('first fails');
      return calls;
    }, 60_000);
    await expect(read()).rejects.toThrow('first fails');
    expect(await read()).toBe(2);
    expect(await read()).toBe(2);
  });
});

describe('startHealthServer', () => {
  it('serves /healthz, /readyz from the readiness check, and /metrics from the registry', async () => {
    const registry = createMetricsRegistry({ processMetrics: true });
    createJobMetrics(registry, { consumes: ['identity-sync'] });
    let ready: boolean | Error = false;
    const server = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      registry,
      readiness: async () => {
        if (ready instanceof Error) throw ready;
        return ready;
      },
    });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect((await fetch(`${base}/readyz`)).status).toBe(503);
      ready = true;
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      ready = new Error('check broke');
      expect((await fetch(`${base}/readyz`)).status).toBe(503);
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.headers.get('content-type')).toContain('text/plain');
      const text = await metrics.text();
      expect(sampleValue(text, 'job_completed_total', { queue: 'identity-sync', outcome: 'completed' })).toBe(0);
      expect(sampleValue(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      expect((await fetch(`${base}/nope`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      await server.close();
    }
  });
});
