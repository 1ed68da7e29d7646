import { defaultWebhookConsumerName, providerFilterSubject } from '@berth/contract';

/** A provider name, as the gateway accepts them: 1-32 characters of a-z, 0-9, `_` and `-`. */
const PROVIDER_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** @throws Error when `provider` cannot be a gateway provider's name (it would never receive an event). */
export function assertProviderName(provider: string, where: string): void {
  if (!PROVIDER_NAME.test(provider))
    throw new Error(
      `${where}: provider ${JSON.stringify(provider)} is not a provider name (1-32 characters of a-z, 0-9, "_" and "-")`,
    );
}

/** The subjects a provider's events are stored on in stream `WEBHOOKS` (`webhooks.<provider>.>`). */
export { providerFilterSubject };

/** The durable consumer of a provider when its settings name none: `webhooks-<provider>`. */
export const defaultConsumerName = defaultWebhookConsumerName;
