import type { Clock } from '@berth/contract';
import type { BerthLogger } from '@berth/logger';
import type { Messaging } from '@berth/messaging';
import { resolveQueueOptions, type QueueOptions } from '../../job-options';
import {
  provisionJobInfrastructure,
  type JobInfrastructure,
  type JobInfrastructureOptions,
} from './job-infrastructure';
import type { BatchingOptions } from './job-batch-publisher';
import { JetStreamJobProducer } from './jetstream-job-producer';

/** Options for {@link createJobProducer}. */
export interface CreateJobProducerOptions {
  messaging: Messaging;
  logger: BerthLogger;
  /** Default settings (only `retryLimit` matters to a producer). */
  defaults?: QueueOptions;
  batching?: BatchingOptions;
  infrastructure?: JobInfrastructureOptions;
  /** Stamps `addedAt`, times delays, and is the stores' clock; the system clock by default. */
  clock?: Clock;
}

/**
 * A job producer outside Nest (the operator CLI, scripts): the same `add` as `MessageQueueService`, on JetStream,
 * provisioning the streams and the deduplication bucket on first use.
 */
export function createJobProducer(options: CreateJobProducerOptions): JetStreamJobProducer {
  let infrastructure: Promise<JobInfrastructure> | undefined;
  const retryLimit = resolveQueueOptions(options.defaults, undefined).retryLimit;
  return new JetStreamJobProducer({
    messaging: options.messaging,
    logger: options.logger,
    batching: options.batching,
    clock: options.clock,
    retryLimitOf: () => retryLimit,
    infrastructure: () => {
      if (!infrastructure) {
        infrastructure = provisionJobInfrastructure(options.messaging, {
          clock: options.clock,
          ...options.infrastructure,
        });
        infrastructure.catch(() => (infrastructure = undefined));
      }
      return infrastructure;
    },
  });
}
