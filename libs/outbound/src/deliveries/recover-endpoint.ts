import { listDeliveries } from './list-deliveries';
import { replayDelivery, type ReplayDependencies, type ReplayedDelivery } from './replay-delivery';

/**
 * "Recover since": replays every `failed` or `skipped` delivery of an endpoint created at or after `since`, oldest
 * first (Svix's recover). Run it after fixing or re-enabling an endpoint. Running it twice replays the deliveries
 * that failed again in between; a delivery still pending is left alone.
 */
export async function recoverEndpoint(dependencies: ReplayDependencies, endpointId: string, since: Date): Promise<ReplayedDelivery[]> {
  const replayed: ReplayedDelivery[] = [];
  const seen = new Set<string>();
  for (;;) {
    const batch = (await listDeliveries(dependencies, { endpointId, status: ['failed', 'skipped'], since, limit: 1000 })).filter((delivery) => !seen.has(delivery._id));
    if (batch.length === 0) return replayed;
    batch.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a._id.localeCompare(b._id));
    for (const delivery of batch) {
      seen.add(delivery._id);
      replayed.push(await replayDelivery(dependencies, delivery._id));
    }
  }
}
