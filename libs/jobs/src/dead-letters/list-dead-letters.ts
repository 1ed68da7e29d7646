import { isNotFound, type Messaging } from '@berth/messaging';
import { DEAD_LETTERS_STREAM_NAME, deadLettersFilter } from '../names';
import type { DeadLetter, StoredDeadLetter } from './dead-letter';

/** Options for {@link listDeadLetters}. */
export interface ListDeadLettersOptions {
  /** Only this queue's dead letters. */
  queue?: string;
  /** At most this many, the most recent ones (default 100). */
  limit?: number;
}

/** Counts the dead letters of jobs per subject (`dead.jobs.<queue>.<name>`), for the filter given. */
export async function countDeadLetters(messaging: Messaging, queue?: string): Promise<Record<string, number>> {
  try {
    const info = await messaging.jsm.streams.info(DEAD_LETTERS_STREAM_NAME, {
      subjects_filter: deadLettersFilter(queue),
    });
    return (info.state.subjects as Record<string, number> | undefined) ?? {};
  } catch (error) {
    if (isNotFound(error)) return {};
    throw error;
  }
}

/** Reads the dead letters of jobs, oldest first (the most recent `limit` of them). */
export async function listDeadLetters(
  messaging: Messaging,
  options: ListDeadLettersOptions = {},
): Promise<StoredDeadLetter[]> {
  const limit = options.limit ?? 100;
  const total = Object.values(await countDeadLetters(messaging, options.queue)).reduce((sum, count) => sum + count, 0);
  if (total === 0 || limit <= 0) return [];
  const consumer = await messaging.js.consumers.get(DEAD_LETTERS_STREAM_NAME, {
    filter_subjects: [deadLettersFilter(options.queue)],
  });
  const found: StoredDeadLetter[] = [];
  let pending = total;
  while (pending > 0) {
    const batch = await consumer.fetch({ max_messages: Math.min(pending, 500), expires: 2000 });
    let received = 0;
    for await (const msg of batch) {
      received += 1;
      pending = msg.info.pending;
      try {
        found.push({
          ...msg.json<DeadLetter>(),
          id: msg.seq,
          storedAt: new Date(Math.floor(msg.info.timestampNanos / 1e6)),
        });
      } catch {
        // Not a dead letter Berth wrote: skip it.
      }
      if (found.length > limit) found.shift();
    }
    if (received === 0) break;
  }
  await consumer.delete().catch(() => undefined);
  return found;
}
