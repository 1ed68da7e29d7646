import { githubPreset } from './github';
import { linearPreset } from './linear';
import { paddlePreset } from './paddle';
import type { WebhookPreset } from './preset';
import { shopifyPreset } from './shopify';
import { slackPreset } from './slack';
import { twilioPreset } from './twilio';
import { resendPreset, standardWebhooksPreset, svixPreset } from './v1-senders';

/** Every provider of the catalog, by the name a `WEBHOOK_PROVIDERS` entry gives as its `preset`. */
export const WEBHOOK_PRESETS: Readonly<Record<string, WebhookPreset>> = Object.freeze(
  Object.fromEntries(
    [
      githubPreset,
      shopifyPreset,
      slackPreset,
      twilioPreset,
      paddlePreset,
      linearPreset,
      resendPreset,
      standardWebhooksPreset,
      svixPreset,
    ].map((preset) => [preset.name, preset]),
  ),
);

/** The preset called `name`, or undefined. */
export function webhookPreset(name: string): WebhookPreset | undefined {
  return Object.hasOwn(WEBHOOK_PRESETS, name) ? WEBHOOK_PRESETS[name] : undefined;
}
