import type { JetStreamClient } from '@nats-io/jetstream';
import { Kvm, type KV, type KvOptions } from '@nats-io/kv';
import { retryProvisioningRace, type EnsureStreamOptions } from './streams';

/**
 * Opens the KV bucket, creating it when absent, like `new Kvm(js).create(name, options)`, but safe when any number
 * of services and replicas open it at once. The KV client reads the bucket's stream and adds it when not found, so
 * a creator that loses the race to one with other settings is refused ("stream name already in use"), and one
 * racing other streams' creations may be refused a reservation: such a refusal is tried again with backoff, and
 * the next try finds the bucket and opens it as it is. Any other error, or a refusal that persists, is thrown.
 */
export async function ensureKvBucket(
  js: JetStreamClient,
  name: string,
  options: Partial<KvOptions> = {},
  retry: Pick<EnsureStreamOptions, 'attempts' | 'sleep'> = {},
): Promise<KV> {
  const kvm = new Kvm(js);
  return retryProvisioningRace(() => kvm.create(name, { ...options }), retry);
}
