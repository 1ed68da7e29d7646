import type { NatsConnection } from '@nats-io/nats-core';
import { ENDPOINT_CHANGED_SUBJECT } from '../names';

/**
 * Tells every dispatcher replica that an endpoint changed (core NATS, fire and forget: a replica that misses it
 * reloads on its own timer), so a disable or a rotated secret takes effect at once. Pass as `onChanged`.
 */
export async function announceEndpointChange(nc: NatsConnection, endpointId: string): Promise<void> {
  nc.publish(ENDPOINT_CHANGED_SUBJECT, endpointId);
  await nc.flush();
}
