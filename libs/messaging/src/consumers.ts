import { AckPolicy, DeliverPolicy, type ConsumerConfig, type JetStreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { isNotFound } from './streams';

/** A durable pull consumer Berth provisions. */
export interface ConsumerSpec {
  stream: string;
  durable: string;
  filterSubjects: string[];
  /** How long a delivered message may go without ack or `working()` before it is delivered again. */
  ackWaitMs: number;
  /** Most messages handed out and not yet acked, across every replica of the service. */
  maxAckPending?: number;
  description?: string;
}

/**
 * Creates the durable consumer, or updates its filter, ack wait and pending limit. Safe from every replica at once:
 * a create refused because another replica created it a moment before goes on from the consumer it made.
 */
export async function ensureConsumer(
  jsm: JetStreamManager,
  spec: ConsumerSpec,
): Promise<'created' | 'updated' | 'unchanged'> {
  const wanted: Partial<ConsumerConfig> = {
    durable_name: spec.durable,
    description: spec.description,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(spec.ackWaitMs),
    max_ack_pending: spec.maxAckPending ?? 1000,
    max_deliver: -1,
    ...(spec.filterSubjects.length === 1
      ? { filter_subject: spec.filterSubjects[0] }
      : { filter_subjects: spec.filterSubjects }),
  };
  let existing = await readConsumerConfig(jsm, spec);
  if (!existing) {
    try {
      await jsm.consumers.add(spec.stream, wanted);
      return 'created';
    } catch (addError) {
      // Replicas starting together: a consumer that exists now was added by another one; go on from it.
      existing = await readConsumerConfig(jsm, spec);
      if (!existing) throw addError;
    }
  }
  const sameFilter =
    JSON.stringify(existing.filter_subjects ?? (existing.filter_subject ? [existing.filter_subject] : [])) ===
    JSON.stringify(spec.filterSubjects);
  if (sameFilter && existing.ack_wait === wanted.ack_wait && existing.max_ack_pending === wanted.max_ack_pending)
    return 'unchanged';
  await jsm.consumers.update(spec.stream, spec.durable, {
    ack_wait: wanted.ack_wait,
    max_ack_pending: wanted.max_ack_pending,
    ...(spec.filterSubjects.length === 1
      ? { filter_subject: spec.filterSubjects[0], filter_subjects: undefined }
      : { filter_subjects: spec.filterSubjects, filter_subject: undefined }),
  });
  return 'updated';
}

async function readConsumerConfig(jsm: JetStreamManager, spec: ConsumerSpec): Promise<ConsumerConfig | undefined> {
  try {
    return (await jsm.consumers.info(spec.stream, spec.durable)).config;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
