import type Router from '@koa/router';
import { createRouter } from '@berth/http-guard/koa';
import { z } from 'zod';
import { readLease, resolveBuckets } from '@berth/cron';
import type { ConsoleDependencies } from '../dependencies';
import { consumerLag } from '../overview/consumer-lag';
import { servicesHealth } from '../overview/services-health';
import { webhookSeries } from '../overview/webhook-series';
import { bucketEnds, chartWindow } from '../overview/windows';
import { queryOf } from './query';

/**
 * `GET /api/overview?window=hour|day`: per provider and per queue, the charts (events or jobs per minute, failures,
 * backlog, oldest unprocessed age), the services' readiness, every consumer's lag, and the scheduler's leader.
 */
export function overviewRoutes(dependencies: ConsoleDependencies): Router {
  const router = createRouter();
  router.get('/api/overview', async (ctx) => {
    const { window: name } = queryOf(ctx, z.object({ window: z.enum(['hour', 'day']).default('hour') }));
    const now = dependencies.clock.now();
    const window = chartWindow(name, now);
    const [webhooks, health, lag, leader] = await Promise.all([
      webhookSeries(dependencies.inbox, window, now),
      servicesHealth(dependencies.healthUrls),
      consumerLag(dependencies.messaging),
      resolveBuckets({ messaging: dependencies.messaging }).then((buckets) => readLease(buckets.lease)),
    ]);
    ctx.body = {
      window: { name, bucketMs: window.bucketMs, buckets: bucketEnds(window) },
      generatedAt: now.toISOString(),
      webhooks,
      queues: { sampledSince: dependencies.sampler.since.toISOString(), series: dependencies.sampler.series(window) },
      services: health,
      consumers: lag,
      scheduler: { leader: leader?.holder ?? null, renewedAt: leader?.renewedAt ?? null },
    };
  });
  return router;
}
