import { ensureStream, isNotFound, webhooksStream, type StreamSizing } from '@berth/messaging';
import type { JetStreamManager } from '@nats-io/jetstream';

/**
 * Creates stream `WEBHOOKS` with Berth's defaults if it does not exist, so the consumer can start before the gateway
 * ever ran (with `STREAM_REPLICAS` replicas). An existing stream is left as it is: the gateway owns its sizing.
 */
export async function ensureWebhooksStreamExists(jsm: JetStreamManager, sizing: StreamSizing = {}): Promise<void> {
  try {
    await jsm.streams.info('WEBHOOKS');
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await ensureStream(jsm, webhooksStream(sizing));
  }
}
