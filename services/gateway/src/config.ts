import { z } from 'zod';
import {
  booleanFlag,
  commaList,
  commonConfig,
  commonEnvSchema,
  healthConfig,
  healthEnvFields,
  lifecycleConfig,
  lifecycleEnvFields,
  parseEnv,
  positiveInt,
  type CommonConfig,
  type HealthConfig,
  type LifecycleConfig,
} from '@berth/config';
import {
  CLERK_HANDLED_EVENT_TYPES,
  MIN_HMAC_SECRET_LENGTH,
  STRIPE_HANDLED_EVENT_TYPES,
  WEBHOOK_PRESETS,
} from '@berth/webhooks';

/** Which event types a provider publishes: a fixed list, or every type it sends. */
export type EventTypeFilter = { readonly kind: 'only'; readonly types: readonly string[] } | { readonly kind: 'all' };

/** How a provider signs its requests; picks the verifier of `@berth/webhooks` (`preset`: one of its catalog). */
export type SignatureScheme = 'stripe' | 'svix' | 'standard-webhooks' | 'hmac-sha256' | 'preset';

/** One provider the gateway accepts on `POST /webhooks/<name>`, with everything needed to verify and route it. */
export interface ProviderConfig {
  /** URL path segment, `Berth-Provider` header, second subject token and `Nats-Msg-Id` prefix. */
  readonly name: string;
  readonly scheme: SignatureScheme;
  /** Every secret that may have signed a request (several during a rotation). */
  readonly secrets: readonly string[];
  readonly eventTypes: EventTypeFilter;
  /** Set when one request carries an array of events under this body field (seed 003). */
  readonly batch?: { readonly eventsField: string };
  /** Body field holding the event id (per item for a batch; single events use the scheme's id header when it has one). */
  readonly idField: string;
  /** Body field holding the event type (per item for a batch). */
  readonly typeField: string;
  /** `hmac-sha256` only: header names, defaulting to the verifier's `x-signature` / `x-timestamp`. */
  readonly signatureHeader?: string;
  readonly timestampHeader?: string;
  /** `preset` only: the catalog entry (`github`, `shopify`…) that verifies it and reads its id and type. */
  readonly preset?: string;
  /** The endpoint's public URL, for presets that sign it (Twilio). */
  readonly url?: string;
  /**
   * Store the events without a consumer: the gateway starts although no worker consumes the provider (its events
   * wait in `WEBHOOKS` for the stream's max age). Otherwise it refuses to start until one does.
   */
  readonly storeOnly: boolean;
}

/** The gateway's settings, parsed and validated from the environment by {@link loadConfig}. */
export interface GatewayConfig extends CommonConfig, HealthConfig, LifecycleConfig {
  readonly port: number;
  readonly host: string;
  /** Providers that are switched on (have secrets); any other `/webhooks/<name>` answers 404. */
  readonly providers: readonly ProviderConfig[];
  /**
   * A copy of an event JetStream holds that arrives this long after the first was stored is a resend from the
   * provider's dashboard: stored marked `Berth-Resent`, so the consumer reopens the event if it was set aside.
   */
  readonly resendCopyAfterMs: number;
  /** How long the start waits for a consumer of every provider that is not store-only, before it refuses. */
  readonly consumerWaitMs: number;
  /** Every provider name the gateway knows, switched on or not (used as a metrics label; others count as `unknown`). */
  readonly knownProviderNames: readonly string[];
  readonly maxBodyBytes: number;
  /** Requests (signed or rejected) per client IP and provider per minute, per replica; 0 switches the limit off. */
  readonly rateLimitPerMinute: number;
  /**
   * What a client may hold before it is authenticated: bodies being read at once per client IP
   * (`WEBHOOK_MAX_BODIES_PER_IP`) and the longest time a body may take to arrive (`WEBHOOK_BODY_TIMEOUT_MS`).
   */
  readonly unauthenticated: { readonly maxBodiesPerIp: number; readonly bodyTimeoutMs: number };
  /** Node's server deadlines: the request head (`HTTP_HEADERS_TIMEOUT_MS`) and the whole request (`HTTP_REQUEST_TIMEOUT_MS`). */
  readonly http: { readonly headersTimeoutMs: number; readonly requestTimeoutMs: number };
  /** How long a publish may wait for its PubAck before the request is answered 503. */
  readonly publishTimeoutMs: number;
  /**
   * Group commit of the events of one subject (`WEBHOOK_BATCH_MAX_EVENTS`, `WEBHOOK_BATCH_MAX_BYTES`,
   * `WEBHOOK_BATCH_IN_FLIGHT`): most events and bytes per stored message, and messages of a subject awaiting their
   * PubAck at once while later events gather.
   */
  readonly batching: {
    readonly maxItemsPerMessage: number;
    readonly maxBytesPerMessage: number;
    readonly maxInFlightPerKey: number;
    /** Events and bytes waiting per subject (`WEBHOOK_QUEUE_MAX_EVENTS`, `WEBHOOK_QUEUE_MAX_BYTES`); past them, 503 at once. */
    readonly maxPendingItemsPerKey: number;
    readonly maxPendingBytesPerKey: number;
  };
  /** Take the client IP from `X-Forwarded-For` (only behind a proxy that sets it). */
  readonly trustProxy: boolean;
  /**
   * Proxies in front of the gateway that each append an `X-Forwarded-For` entry (`TRUST_PROXY_HOPS`): the client IP
   * is the entry this many places from the right, the one the outermost trusted proxy appended. Entries left of it
   * are whatever the client sent.
   */
  readonly trustProxyHops: number;
}

/** The health and metrics port when `HEALTH_PORT` is unset, whatever `NODE_ENV` says (tests pass `HEALTH_PORT=0`). */
export const DEFAULT_HEALTH_PORT = 9463;

/** Provider names reserved for the built-in providers and for path segments that would be confusing. */
const RESERVED_PROVIDER_NAMES = ['stripe', 'clerk'];

const providerName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'provider names are 1-32 characters of a-z, 0-9, "_" and "-"')
  .refine((name) => !RESERVED_PROVIDER_NAMES.includes(name), 'stripe and clerk are configured by their own variables');

const headerName = z
  .string()
  .regex(/^[A-Za-z0-9-]+$/, 'not an HTTP header name')
  .transform((name) => name.toLowerCase());

/** The shortest secret of each configurable scheme: the catalog's for Standard Webhooks, 16 characters for HMAC. */
const MIN_SCHEME_SECRET_LENGTH = {
  'standard-webhooks': WEBHOOK_PRESETS['standard-webhooks'].minSecretLength,
  'hmac-sha256': MIN_HMAC_SECRET_LENGTH,
} as const;

const secretList = z.array(z.string().trim().min(1)).min(1);

/** A `WEBHOOK_PROVIDERS` entry of the catalog: `{ "name": "gh", "preset": "github", "secrets": [...] }`. */
const presetProviderSchema = z
  .object({
    name: providerName,
    preset: z.enum(Object.keys(WEBHOOK_PRESETS) as [string, ...string[]]),
    secrets: secretList,
    eventTypes: z.array(z.string().min(1)).optional(),
    url: z.url().optional(),
    storeOnly: z.boolean().default(false),
  })
  .strict()
  .superRefine((p, ctx) => {
    const preset = WEBHOOK_PRESETS[p.preset];
    p.secrets.forEach((secret, index) => {
      if (secret.length < preset.minSecretLength)
        ctx.addIssue({
          code: 'custom',
          path: ['secrets', index],
          message: `${p.name}: a ${p.preset} secret has at least ${preset.minSecretLength} characters`,
        });
    });
    if (preset.needsUrl && !p.url)
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: `${p.name}: the ${p.preset} preset needs the endpoint's public "url", which the provider signs`,
      });
  });

/** One entry of `WEBHOOK_PROVIDERS` naming a scheme. */
const schemeProviderSchema = z
  .object({
    name: providerName,
    scheme: z.enum(['standard-webhooks', 'hmac-sha256']),
    secrets: secretList,
    storeOnly: z.boolean().default(false),
    eventTypes: z.array(z.string().min(1)).optional(),
    batch: z
      .object({ eventsField: z.string().min(1) })
      .strict()
      .optional(),
    idField: z.string().min(1).default('id'),
    typeField: z.string().min(1).default('type'),
    signatureHeader: headerName.optional(),
    timestampHeader: headerName.optional(),
  })
  .strict()
  .refine((p) => p.scheme === 'hmac-sha256' || (p.signatureHeader === undefined && p.timestampHeader === undefined), {
    message: 'signatureHeader/timestampHeader apply to the hmac-sha256 scheme only',
  })
  .superRefine((p, ctx) => {
    const min = MIN_SCHEME_SECRET_LENGTH[p.scheme];
    p.secrets.forEach((secret, index) => {
      if (secret.length < min)
        ctx.addIssue({
          code: 'custom',
          path: ['secrets', index],
          message: `${p.name}: a ${p.scheme} secret has at least ${min} characters`,
        });
    });
  });

/** One entry of `WEBHOOK_PROVIDERS`: a catalog preset, or a scheme with its fields. */
const configuredProviderSchema = z.union([presetProviderSchema, schemeProviderSchema]);

/** `WEBHOOK_PROVIDERS`: a JSON array of {@link configuredProviderSchema}, unique names. */
const configuredProvidersSchema = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (text === undefined || text.trim() === '') return [];
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not valid JSON' });
      return z.NEVER;
    }
  })
  .pipe(z.array(configuredProviderSchema))
  .refine((list) => new Set(list.map((p) => p.name)).size === list.length, 'provider names must be unique');

/** Every variable the gateway reads. */
const gatewayEnvSchema = commonEnvSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  ...healthEnvFields(DEFAULT_HEALTH_PORT),
  /** `SHUTDOWN_GRACE_MS` (10 s: in-flight requests at SIGTERM, before their connections are cut) and `STREAM_REPLICAS`. */
  ...lifecycleEnvFields(10_000),
  BILLING_PROVIDER: z.enum(['stripe', 'none']).default('stripe'),
  STRIPE_WEBHOOK_SECRET: commaList,
  CLERK_WEBHOOK_SIGNING_SECRET: commaList,
  STRIPE_EVENT_TYPES: commaList,
  CLERK_EVENT_TYPES: commaList,
  WEBHOOK_PROVIDERS: configuredProvidersSchema,
  WEBHOOK_MAX_BODY_BYTES: positiveInt(1024 * 1024),
  WEBHOOK_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  // Providers are answered within 2 s in every case: the PubAck wait plus the pipeline's 50 ms timeout sweep.
  PUBLISH_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .positive()
    .max(1900, 'must leave the answer under 2 s (at most 1900)')
    .default(1500),
  TRUST_PROXY: booleanFlag(false),
  TRUST_PROXY_HOPS: z.coerce.number().int().min(1).max(10).default(1),
  WEBHOOK_MAX_BODIES_PER_IP: z.coerce.number().int().min(1).max(10_000).default(8),
  WEBHOOK_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  // Waiting events per subject while its message is being stored: bounded, so a slow JetStream costs bounded memory.
  WEBHOOK_QUEUE_MAX_EVENTS: z.coerce.number().int().min(1).max(100_000).default(1000),
  WEBHOOK_QUEUE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(16 * 1024 * 1024),
  // Group commit: events of one subject that arrive while its messages are being stored leave together.
  WEBHOOK_BATCH_MAX_EVENTS: z.coerce.number().int().min(1).max(1000).default(100),
  WEBHOOK_BATCH_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(8 * 1024 * 1024)
    .default(512 * 1024),
  // One message per subject in flight: more make smaller batches at the same load, for more CPU per event and no
  // more requests/s (figures in the README's design notes).
  WEBHOOK_BATCH_IN_FLIGHT: z.coerce.number().int().min(1).max(64).default(1),
  // Providers (by name, Stripe and Clerk included) stored without a consumer; any other must have one to start.
  WEBHOOK_STORE_ONLY_PROVIDERS: commaList,
  // A copy of a stored event arriving this long after it is a resend (stored marked, to reopen a set-aside event).
  WEBHOOK_RESEND_COPY_AFTER_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(5 * 60_000),
  // How long the gateway waits at start for a consumer of every provider (workers may start after it).
  WEBHOOK_CONSUMER_WAIT_MS: z.coerce.number().int().min(0).default(60_000),
});

/** An override list replaces the defaults; `*` alone means every type. */
function eventTypeFilter(override: string[], defaults: readonly string[]): EventTypeFilter {
  if (override.length === 1 && override[0] === '*') return { kind: 'all' };
  return { kind: 'only', types: override.length > 0 ? override : defaults };
}

/**
 * Reads the gateway's configuration from an environment map (`process.env` in `main.ts`, a literal in tests).
 *
 * - Stripe is on unless `BILLING_PROVIDER=none` or `STRIPE_WEBHOOK_SECRET` is empty; Clerk is on when
 *   `CLERK_WEBHOOK_SIGNING_SECRET` is set. Both take comma-separated secrets, for rotation.
 * - `STRIPE_EVENT_TYPES` / `CLERK_EVENT_TYPES` replace the handled lists of `@berth/webhooks` (`*` = all).
 * - `WEBHOOK_PROVIDERS` adds providers of the `@berth/webhooks` catalog (`preset`) and Standard Webhooks and
 *   HMAC-SHA256 senders (`scheme`), JSON array; their secrets have the scheme's minimum length.
 * - `WEBHOOK_STORE_ONLY_PROVIDERS` names providers stored without a consumer (or `"storeOnly": true` in an entry).
 *
 * @throws ConfigError naming every invalid variable.
 */
export function loadConfig(env: Record<string, string | undefined>): GatewayConfig {
  const parsed = parseEnv(gatewayEnvSchema, env);
  const providers: ProviderConfig[] = [];
  if (parsed.BILLING_PROVIDER === 'stripe' && parsed.STRIPE_WEBHOOK_SECRET.length > 0) {
    providers.push({
      name: 'stripe',
      scheme: 'stripe',
      secrets: parsed.STRIPE_WEBHOOK_SECRET,
      eventTypes: eventTypeFilter(parsed.STRIPE_EVENT_TYPES, STRIPE_HANDLED_EVENT_TYPES),
      idField: 'id',
      typeField: 'type',
      storeOnly: false,
    });
  }
  if (parsed.CLERK_WEBHOOK_SIGNING_SECRET.length > 0) {
    providers.push({
      name: 'clerk',
      scheme: 'svix',
      secrets: parsed.CLERK_WEBHOOK_SIGNING_SECRET,
      eventTypes: eventTypeFilter(parsed.CLERK_EVENT_TYPES, CLERK_HANDLED_EVENT_TYPES),
      idField: 'id',
      typeField: 'type',
      storeOnly: false,
    });
  }
  for (const configured of parsed.WEBHOOK_PROVIDERS) {
    const eventTypes: EventTypeFilter = configured.eventTypes
      ? { kind: 'only', types: configured.eventTypes }
      : { kind: 'all' };
    if ('preset' in configured) {
      const { name, preset, secrets, url, storeOnly } = configured;
      providers.push({
        name,
        scheme: 'preset',
        preset,
        secrets,
        eventTypes,
        idField: 'id',
        typeField: 'type',
        storeOnly,
        ...(url ? { url } : {}),
      });
    } else {
      const { eventTypes: _types, ...rest } = configured;
      providers.push({ ...rest, eventTypes });
    }
  }
  const storeOnly = new Set(parsed.WEBHOOK_STORE_ONLY_PROVIDERS);
  const withStoreOnly = providers.map((provider) =>
    storeOnly.has(provider.name) ? { ...provider, storeOnly: true } : provider,
  );
  return {
    ...commonConfig(parsed, 'gateway'),
    ...healthConfig(parsed),
    ...lifecycleConfig(parsed),
    port: parsed.PORT,
    host: parsed.HOST,
    providers: withStoreOnly,
    consumerWaitMs: parsed.WEBHOOK_CONSUMER_WAIT_MS,
    resendCopyAfterMs: parsed.WEBHOOK_RESEND_COPY_AFTER_MS,
    knownProviderNames: [...RESERVED_PROVIDER_NAMES, ...parsed.WEBHOOK_PROVIDERS.map((p) => p.name)],
    maxBodyBytes: parsed.WEBHOOK_MAX_BODY_BYTES,
    rateLimitPerMinute: parsed.WEBHOOK_RATE_LIMIT_PER_MINUTE,
    unauthenticated: {
      maxBodiesPerIp: parsed.WEBHOOK_MAX_BODIES_PER_IP,
      bodyTimeoutMs: parsed.WEBHOOK_BODY_TIMEOUT_MS,
    },
    http: { headersTimeoutMs: parsed.HTTP_HEADERS_TIMEOUT_MS, requestTimeoutMs: parsed.HTTP_REQUEST_TIMEOUT_MS },
    publishTimeoutMs: parsed.PUBLISH_TIMEOUT_MS,
    batching: {
      maxItemsPerMessage: parsed.WEBHOOK_BATCH_MAX_EVENTS,
      maxBytesPerMessage: parsed.WEBHOOK_BATCH_MAX_BYTES,
      maxInFlightPerKey: parsed.WEBHOOK_BATCH_IN_FLIGHT,
      maxPendingItemsPerKey: parsed.WEBHOOK_QUEUE_MAX_EVENTS,
      maxPendingBytesPerKey: parsed.WEBHOOK_QUEUE_MAX_BYTES,
    },
    trustProxy: parsed.TRUST_PROXY,
    trustProxyHops: parsed.TRUST_PROXY_HOPS,
  };
}
