import { SVIX_KEPT_HEADERS, STANDARD_WEBHOOKS_KEPT_HEADERS } from '../provider-headers';
import { DEFAULT_TOLERANCE_SECONDS } from '../timing';
import { MIN_HMAC_SECRET_LENGTH } from './preset';

/** Where a value is read: a request header, or a field of the verified JSON body (a path of keys). */
export type Place = { readonly header: string } | { readonly body: readonly string[] };

/**
 * How a provider signs. One verifier per scheme (`schemes.ts`):
 * - `body-hmac`: `<prefix><hex or base64 HMAC-SHA256 of the body>` in one header;
 * - `timestamped-hmac`: HMAC-SHA256 of `<signedPrefix with {ts}>` + body, the timestamp in a header or in a
 *   `ts=` field of the signature header, signatures after `prefix` or in repeated `field=` entries;
 * - `url-form-hmac-sha1`: Twilio's HMAC-SHA1 of the public URL and the sorted form parameters, base64;
 * - `standard-webhooks` and `svix`: the `v1,` schemes of `standard-webhooks.ts` and `svix.ts`.
 */
export type SignatureScheme =
  | {
      readonly kind: 'body-hmac';
      readonly header: string;
      readonly prefix: string;
      readonly encoding: 'hex' | 'base64';
    }
  | {
      readonly kind: 'timestamped-hmac';
      readonly header: string;
      /** The signature: after `prefix` (one), or the values of every `field=` entry (several during a rotation). */
      readonly signature: { readonly prefix: string } | { readonly field: string };
      /** The unix-seconds timestamp: its own header, or the `field=` entry of the signature header. */
      readonly timestamp: { readonly header: string } | { readonly field: string };
      /** What precedes the body in the signed content; `{ts}` stands for the timestamp as sent. */
      readonly signedPrefix: string;
      readonly toleranceSeconds: number;
      /** The `malformed` message. */
      readonly format: string;
    }
  | { readonly kind: 'url-form-hmac-sha1'; readonly header: string }
  | { readonly kind: 'standard-webhooks' }
  | { readonly kind: 'svix' };

/** How the event is read from a JSON body once the signature holds. */
export interface JsonEventFields {
  /** The event id, from the first place that has it. */
  readonly id: readonly Place[];
  /** Without an id in the request, the id is a hash of the signed content (`signedContentId`). */
  readonly idFromSignedContent?: boolean;
  /** The type, from the first place that has it, followed by `.<action>` when the body has one there. */
  readonly type: readonly Place[];
  readonly action?: readonly string[];
  /** A signed body field (milliseconds) that must be within `toleranceMs` of now, and is then the event's time. */
  readonly sentAt?: { readonly body: readonly string[]; readonly toleranceMs: number };
  /** The message when the verified body is not JSON. */
  readonly notJson?: string;
}

/** One provider of the catalog, as data. */
export interface PresetRow {
  readonly name: string;
  /** How the provider is named in a `bad_signature` message, and what it calls its secret. */
  readonly label: string;
  readonly secretName?: string;
  readonly scheme: SignatureScheme;
  /** Headers that must be present besides the signature's (the id's and type's). */
  readonly requiredHeaders?: readonly string[];
  /** The body: JSON; Slack's JSON or form (slash commands, interactivity); Twilio's form parameters. */
  readonly body:
    | { readonly kind: 'json'; readonly fields: JsonEventFields }
    | { readonly kind: 'json-or-slack-form'; readonly fields: JsonEventFields }
    | {
        readonly kind: 'twilio-form';
        /** The id header, else a hash of the signed content. */
        readonly idHeader: string;
        /** `<prefix><value>` of the first form field present, else `fallback`. */
        readonly type: readonly { readonly field: string; readonly prefix: string }[];
        readonly typeFallback: string;
      };
  readonly keptHeaders: readonly string[];
  readonly minSecretLength: number;
  readonly needsUrl?: boolean;
}

/** Standard Webhooks keys are `whsec_` + base64 of at least 24 random bytes (the specification's minimum). */
const MIN_V1_SECRET_LENGTH = 'whsec_'.length + 32;

/**
 * A `v1,` sender (Standard Webhooks, Svix, and Resend, which signs with Svix): its scheme gives the id and time,
 * the event type is the body's `type`.
 */
function v1Row(name: string, label: string, scheme: 'standard-webhooks' | 'svix'): PresetRow {
  return {
    name,
    label,
    scheme: { kind: scheme },
    body: { kind: 'json', fields: { id: [], type: [{ body: ['type'] }] } },
    keptHeaders: scheme === 'svix' ? SVIX_KEPT_HEADERS : STANDARD_WEBHOOKS_KEPT_HEADERS,
    minSecretLength: MIN_V1_SECRET_LENGTH,
  };
}

/**
 * The catalog: every provider a `WEBHOOK_PROVIDERS` entry can name as its `preset`. GitHub and Shopify sign no
 * timestamp, so a captured delivery can be replayed: the inbox applies one delivery id once. Paddle's SDK refuses a
 * signature older than 5 seconds; the gateway allows the usual 5 minutes of clock skew. Linear's documented replay
 * window is a minute on the body's `webhookTimestamp`. Slack's slash commands and interactivity, and Twilio's status
 * callbacks, carry no id: theirs is a hash of the signed content, so a retry of one delivery gets the same id.
 * Twilio signs the endpoint's public URL, configured (`url`), since behind a proxy the gateway cannot know it.
 */
export const PRESET_TABLE: readonly PresetRow[] = [
  {
    name: 'github',
    label: 'GitHub',
    scheme: { kind: 'body-hmac', header: 'x-hub-signature-256', prefix: 'sha256=', encoding: 'hex' },
    requiredHeaders: ['x-github-delivery', 'x-github-event'],
    body: {
      kind: 'json',
      fields: {
        id: [{ header: 'x-github-delivery' }],
        type: [{ header: 'x-github-event' }],
        action: ['action'],
        notJson: 'verified body is not JSON (configure the webhook with content type application/json)',
      },
    },
    keptHeaders: [
      'x-github-event',
      'x-github-delivery',
      'x-github-hook-id',
      'x-github-hook-installation-target-id',
      'x-github-hook-installation-target-type',
      'x-hub-signature-256',
    ],
    minSecretLength: MIN_HMAC_SECRET_LENGTH,
  },
  {
    name: 'shopify',
    label: 'Shopify',
    scheme: { kind: 'body-hmac', header: 'x-shopify-hmac-sha256', prefix: '', encoding: 'base64' },
    requiredHeaders: ['x-shopify-webhook-id', 'x-shopify-topic'],
    body: {
      kind: 'json',
      fields: { id: [{ header: 'x-shopify-webhook-id' }], type: [{ header: 'x-shopify-topic' }] },
    },
    keptHeaders: [
      'x-shopify-topic',
      'x-shopify-hmac-sha256',
      'x-shopify-shop-domain',
      'x-shopify-webhook-id',
      'x-shopify-api-version',
      'x-shopify-triggered-at',
      'x-shopify-event-id',
    ],
    minSecretLength: MIN_HMAC_SECRET_LENGTH,
  },
  {
    name: 'slack',
    label: 'Slack',
    scheme: {
      kind: 'timestamped-hmac',
      header: 'x-slack-signature',
      signature: { prefix: 'v0=' },
      timestamp: { header: 'x-slack-request-timestamp' },
      signedPrefix: 'v0:{ts}:',
      toleranceSeconds: DEFAULT_TOLERANCE_SECONDS,
      format: 'x-slack-signature is not v0=<64 hex>, or the timestamp is not unix seconds',
    },
    body: {
      kind: 'json-or-slack-form',
      fields: {
        id: [{ body: ['event_id'] }],
        idFromSignedContent: true,
        type: [{ body: ['event', 'type'] }, { body: ['type'] }],
      },
    },
    keptHeaders: ['x-slack-signature', 'x-slack-request-timestamp', 'x-slack-retry-num', 'x-slack-retry-reason'],
    minSecretLength: MIN_HMAC_SECRET_LENGTH,
  },
  {
    name: 'twilio',
    label: 'Twilio',
    secretName: 'auth token',
    scheme: { kind: 'url-form-hmac-sha1', header: 'x-twilio-signature' },
    body: {
      kind: 'twilio-form',
      idHeader: 'i-twilio-idempotency-token',
      type: [
        { field: 'MessageStatus', prefix: 'message.' },
        { field: 'CallStatus', prefix: 'call.' },
      ],
      typeFallback: 'request',
    },
    keptHeaders: ['x-twilio-signature', 'i-twilio-idempotency-token'],
    needsUrl: true,
    minSecretLength: MIN_HMAC_SECRET_LENGTH,
  },
  {
    name: 'paddle',
    label: 'Paddle',
    scheme: {
      kind: 'timestamped-hmac',
      header: 'paddle-signature',
      signature: { field: 'h1' },
      timestamp: { field: 'ts' },
      signedPrefix: '{ts}:',
      toleranceSeconds: DEFAULT_TOLERANCE_SECONDS,
      format: 'paddle-signature is not ts=<seconds>;h1=<64 hex>',
    },
    body: { kind: 'json', fields: { id: [{ body: ['event_id'] }], type: [{ body: ['event_type'] }] } },
    keptHeaders: ['paddle-signature'],
    minSecretLength: MIN_HMAC_SECRET_LENGTH,
  },
  {
    name: 'linear',
    label: 'Linear',
    scheme: { kind: 'body-hmac', header: 'linear-signature', prefix: '', encoding: 'hex' },
    requiredHeaders: ['linear-delivery'],
    body: {
      kind: 'json',
      fields: {
        id: [{ header: 'linear-delivery' }],
        type: [{ body: ['type'] }],
        action: ['action'],
        sentAt: { body: ['webhookTimestamp'], toleranceMs: 60_000 },
      },
    },
    keptHeaders: ['linear-signature', 'linear-delivery', 'linear-event'],
    minSecretLength: MIN_HMAC_SECRET_LENGTH,
  },
  v1Row('resend', 'Resend', 'svix'),
  v1Row('standard-webhooks', 'Standard Webhooks', 'standard-webhooks'),
  v1Row('svix', 'Svix', 'svix'),
];
