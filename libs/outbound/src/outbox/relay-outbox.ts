import { systemClock, type Clock } from '@berth/contract';
import type { BerthLogger } from '@berth/logger';
import type { UpdateFilter } from 'mongodb';
import { OUTBOX_SCAN_PATH, pendingOutboxScanFilter } from './outbox-index';
import {
  OUTBOX_FIELD,
  type OutboxCollection,
  type OutboxDocument,
  type OutboxEntry,
  type OutboxSend,
} from './outbox-types';

/** Options of {@link relayOutbox}. */
export interface RelayOutboxOptions {
  /**
   * The business collections whose documents carry outbox entries, each as `db.collection<OutboxDocument>(name)`:
   * the relay reads and writes only `_id` and `_outbox`, whatever else the documents hold.
   */
  collections: readonly OutboxCollection[];
  send: OutboxSend;
  logger: BerthLogger;
  clock?: Clock;
  /** Documents read per collection and pass; 100 by default. */
  batchSize?: number;
  /** Documents relayed at the same time; 8 by default. Entries of one document are always sent in order. */
  concurrency?: number;
}

/** What one pass did. */
export interface RelayOutboxResult {
  /** Entries sent and removed. */
  sent: number;
  /** Entries whose send failed; they stay, and are sent again by a later pass. */
  failed: number;
  /** Whether a collection returned a full batch, so more may be pending right now. */
  more: boolean;
}

/**
 * One pass of the outbox relay: for the pending documents, oldest entry first, sends each entry in order under its
 * id as idempotency key, then removes exactly that entry with `$pull`. Sending before removing makes the relay
 * at-least-once: a crash or failed `$pull` after a send only means the entry is sent again, under the same key, which
 * the stream's duplicate window drops. Nothing is claimed or locked, so several relays may run at once; at worst they
 * send an entry twice, and none removes an entry it has not sent (a relay that finds its entry already removed
 * leaves the rest of that document to the relay that removed it). A failed send stops that document's pass, so its
 * later entries never overtake it.
 */
export async function relayOutbox(options: RelayOutboxOptions): Promise<RelayOutboxResult> {
  const batchSize = options.batchSize ?? 100;
  const result: RelayOutboxResult = { sent: 0, failed: 0, more: false };
  for (const collection of options.collections) {
    const documents = await collection
      .find(pendingOutboxScanFilter(), {
        sort: { [OUTBOX_SCAN_PATH]: 1 },
        limit: batchSize,
        projection: { [OUTBOX_FIELD]: 1 },
      })
      .toArray();
    if (documents.length === batchSize) result.more = true;
    await forEachConcurrently(documents, options.concurrency ?? 8, async (document) => {
      const outcome = await relayDocument(collection, document, options);
      result.sent += outcome.sent;
      result.failed += outcome.failed;
    });
  }
  return result;
}

async function relayDocument(
  collection: OutboxCollection,
  document: OutboxDocument,
  options: RelayOutboxOptions,
): Promise<{ sent: number; failed: number }> {
  const entries: OutboxEntry[] = document._outbox ?? [];
  let sent = 0;
  for (const entry of entries) {
    const log = {
      collection: collection.collectionName,
      documentId: String(document._id),
      outboxId: entry.id,
      eventType: entry.eventType,
    };
    try {
      const payload: unknown = JSON.parse(entry.payload);
      await options.send(entry.workspaceId, entry.eventType, payload, { idempotencyKey: entry.id });
    } catch (error) {
      options.logger.warn(
        { ...log, err: error },
        'outbox send failed; the entry stays and is sent again on a later pass',
      );
      return { sent, failed: 1 };
    }
    let removed: boolean;
    try {
      // By the entry's id alone, so an entry whose other fields changed after it was read is still removed once sent.
      const pulled = await collection.updateOne({ _id: document._id }, {
        $pull: { [OUTBOX_FIELD]: { id: entry.id } },
      } as unknown as UpdateFilter<OutboxDocument>);
      removed = pulled.modifiedCount > 0;
    } catch (error) {
      options.logger.warn(
        { ...log, err: error },
        'outbox entry sent but not removed; it will be sent again under the same idempotency key',
      );
      return { sent, failed: 0 };
    }
    sent += 1;
    // Already removed: another relay sent it too and goes on with this document; leave the rest to it.
    if (!removed) return { sent, failed: 0 };
    const ageMs = (options.clock ?? systemClock).now().getTime() - entry.createdAt.getTime();
    options.logger.debug({ ...log, ageMs }, 'outbox entry sent');
  }
  return { sent, failed: 0 };
}

async function forEachConcurrently<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
}
