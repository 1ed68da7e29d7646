import { ensureStream, isNotFound, webhooksStream } from '@berth/messaging';
import type { JetStreamManager } from '@nats-io/jetstream';

/**
 * Creates stream `WEBHOOKS` with Berth's defaults if it does not exist, so the consumer can start before the gateway
 * ever ran. An existing stream is left as it is: the gateway owns its sizing.
 */
export async function ensureWebhooksStreamExists(jsm: JetStreamManager): Promise<void> {
  try {
    await jsm.streams.info('WEBHOOKS');
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await ensureStream(jsm, webhooksStream());
  }
}
