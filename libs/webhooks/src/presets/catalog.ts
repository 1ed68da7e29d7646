import type { WebhookPreset } from './preset';
import { readEvent } from './read-event';
import { verifySignature } from './schemes';
import { PRESET_TABLE, type PresetRow } from './table';

/** A row of the table as a preset: its scheme's verifier, then the event read where the row says. */
function presetOf(row: PresetRow): WebhookPreset {
  return {
    name: row.name,
    keptHeaders: row.keptHeaders,
    minSecretLength: row.minSecretLength,
    ...(row.needsUrl ? { needsUrl: true } : {}),
    verify(input) {
      const signed = verifySignature(row, input);
      return signed.ok ? readEvent(row, input, signed) : signed;
    },
  };
}

/** Every provider of the catalog, by the name a `WEBHOOK_PROVIDERS` entry gives as its `preset`. */
export const WEBHOOK_PRESETS: Readonly<Record<string, WebhookPreset>> = Object.freeze(
  Object.fromEntries(PRESET_TABLE.map((row) => [row.name, presetOf(row)])),
);

/** The preset called `name`, or undefined. */
export function webhookPreset(name: string): WebhookPreset | undefined {
  return Object.hasOwn(WEBHOOK_PRESETS, name) ? WEBHOOK_PRESETS[name] : undefined;
}
