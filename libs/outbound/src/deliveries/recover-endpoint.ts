import { listDeliveries } from './list-deliveries';
import { replayDelivery, type ReplayDependencies, type ReplayedDelivery } from './replay-delivery';

/**
 * "Recover since": replays every `failed` or `skipped` delivery of an endpoint created at or after `since`, oldest
 * first (Svix's recover). Run it after fixing or re-enabling an endpoint. A delivery still pending is left alone;
 * running it again replays only what failed again in between.
 */
export async function recoverEndpoint(
  dependencies: ReplayDependencies,
  endpointId: string,
  since: Date,
): Promise<ReplayedDelivery[]> {
  const toReplay = await listDeliveries(dependencies, {
    endpointId,
    status: ['failed', 'skipped'],
    since,
    limit: 10_000,
  });
  toReplay.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const replayed: ReplayedDelivery[] = [];
  for (const delivery of toReplay) replayed.push(await replayDelivery(dependencies, delivery.id));
  return replayed;
}
