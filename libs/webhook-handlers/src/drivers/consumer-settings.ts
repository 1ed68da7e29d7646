import { defaultConsumerName } from '../names';
import type { WebhookConsumerSettings, WebhooksModuleOptions } from '../webhooks-module-options';

/** A provider's consumer settings with every default filled in. */
export type ResolvedConsumerSettings = Required<
  Pick<WebhookConsumerSettings, 'consumer' | 'concurrency' | 'ackWaitMs' | 'maxAckPending'>
> &
  Pick<WebhookConsumerSettings, 'onOutcome' | 'onGiveUp'>;

/** The settings of `provider`: its own, then the module's defaults, then 16 at once, 30 s ack wait, 1000 pending. */
export function consumerSettingsOf(
  options: Pick<WebhooksModuleOptions, 'providers' | 'defaults'>,
  provider: string,
): ResolvedConsumerSettings {
  const own = options.providers?.[provider] ?? {};
  const defaults = options.defaults ?? {};
  return {
    consumer: own.consumer ?? defaultConsumerName(provider),
    concurrency: own.concurrency ?? defaults.concurrency ?? 16,
    ackWaitMs: own.ackWaitMs ?? defaults.ackWaitMs ?? 30_000,
    maxAckPending: own.maxAckPending ?? defaults.maxAckPending ?? 1000,
    onOutcome: own.onOutcome ?? defaults.onOutcome,
    onGiveUp: own.onGiveUp ?? defaults.onGiveUp,
  };
}
