import type { BerthLogger } from '@berth/logger';
import type { Clock } from '@berth/contract';
import type { OutboundCollections } from '../collections';
import { deleteOldDeliveries } from '../deliveries/delete-old-deliveries';

/**
 * Every `intervalMs`, deletes the delivery log older than `maxAgeMs` (see `deleteOldDeliveries`). Every replica
 * runs it: the deletes are idempotent, and a failed pass is retried at the next. Returns the function that stops it.
 */
export function startRetentionLoop(options: {
  collections: Pick<OutboundCollections, 'deliveries' | 'attempts' | 'events'>;
  clock: Clock;
  logger: BerthLogger;
  maxAgeMs: number;
  intervalMs: number;
}): () => void {
  const timer = setInterval(() => {
    const before = new Date(options.clock.now().getTime() - options.maxAgeMs);
    deleteOldDeliveries({ collections: options.collections }, before).then(
      (deleted) => {
        if (deleted.deliveries + deleted.attempts + deleted.events > 0)
          options.logger.info(
            { ...deleted, before: before.toISOString() },
            'Delivery log retention: deleted what was older than the retention',
          );
      },
      (error: unknown) =>
        options.logger.warn({ err: error }, 'Delivery log retention failed; retried at the next pass'),
    );
  }, options.intervalMs);
  return () => clearInterval(timer);
}
