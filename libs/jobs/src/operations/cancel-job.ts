import type { Messaging } from '@berth/messaging';
import type { CancellationRecord } from '../drivers/cancellations';
import { openKvCancellations, type KvCancellationOptions } from '../drivers/jetstream/kv-cancellations';
import { assertQueueName } from '../names';

/**
 * Cancels a job from any process holding a NATS connection (the operator CLI, another service): the same as
 * `MessageQueueService.cancel`, without Nest. See there for what happens to the job.
 */
export async function cancelJob(
  messaging: Messaging,
  queue: string,
  jobId: string,
  options: { reason?: string } & KvCancellationOptions = {},
): Promise<CancellationRecord> {
  assertQueueName(queue);
  if (jobId.length === 0) throw new Error('A job id is required');
  const { reason, ...bucket } = options;
  return (await openKvCancellations(messaging.js, bucket)).cancel(queue, jobId, reason);
}

/** Cancellations still remembered (15 days by default), oldest first, for one queue or every queue. */
export async function listCancellations(
  messaging: Messaging,
  queue?: string,
  options: KvCancellationOptions = {},
): Promise<CancellationRecord[]> {
  return (await openKvCancellations(messaging.js, options)).list(queue);
}
