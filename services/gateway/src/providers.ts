import type { Clock } from '@berth/contract';
import type { IncomingHttpHeaders } from 'node:http';
import {
  DEFAULT_HMAC_SIGNATURE_HEADER,
  DEFAULT_HMAC_TIMESTAMP_HEADER,
  keptProviderHeaders,
  STANDARD_WEBHOOKS_KEPT_HEADERS,
  STRIPE_KEPT_HEADERS,
  SVIX_KEPT_HEADERS,
  verifyHmacSha256,
  verifyStandardWebhook,
  verifyStripeSignature,
  verifySvixSignature,
  webhookPreset,
  type PresetVerificationSuccess,
  type VerificationResult,
  type VerificationSuccess,
} from '@berth/webhooks';
import type { ProviderConfig } from './config';

/** One event found in a verified delivery, before the handled-type filter. */
export interface DeliveredEvent {
  readonly eventId: string;
  readonly type: string;
  /** Bytes to store: the raw body for a single event, the item's JSON for a batch item. */
  readonly data: Uint8Array;
}

/** The events of one verified delivery that the gateway publishes, and what it dropped. */
export interface ExtractedEvents {
  readonly handled: DeliveredEvent[];
  /** Events of a type the gateway does not handle. */
  readonly unhandledCount: number;
  /** Signed content the gateway cannot use (no type, no id, batch field not an array). */
  readonly unusable: string[];
}

/** A switched-on provider: how to verify its requests and which events of a verified delivery to publish. */
export interface ProviderEndpoint {
  readonly name: string;
  /** Verifies a request over its exact bytes with every configured secret. Never throws for request content. */
  verify(rawBody: Buffer, headers: IncomingHttpHeaders): VerificationResult;
  /** Reads the events out of a verified delivery and keeps the handled ones. */
  extract(verified: VerificationSuccess, rawBody: Buffer): ExtractedEvents;
  /** The request headers stored with the events of a verified delivery: the scheme's allow-list, lower case. */
  keptHeaders(headers: IncomingHttpHeaders): Record<string, string>;
}

/** Which request headers each scheme keeps for the handler: those it signs or identifies the event with. */
function keptHeaderNames(config: ProviderConfig): readonly string[] {
  switch (config.scheme) {
    case 'stripe':
      return STRIPE_KEPT_HEADERS;
    case 'svix':
      return SVIX_KEPT_HEADERS;
    case 'standard-webhooks':
      return STANDARD_WEBHOOKS_KEPT_HEADERS;
    case 'preset':
      return (config.preset === undefined ? undefined : webhookPreset(config.preset))?.keptHeaders ?? [];
    case 'hmac-sha256':
      return [
        config.signatureHeader ?? DEFAULT_HMAC_SIGNATURE_HEADER,
        config.timestampHeader ?? DEFAULT_HMAC_TIMESTAMP_HEADER,
      ].map((name) => name.toLowerCase());
  }
}

type Verifier = (rawBody: Buffer, headers: IncomingHttpHeaders) => VerificationResult;

/** A string field of a JSON object, or undefined. */
function stringField(value: unknown, field: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const found = (value as Record<string, unknown>)[field];
  return typeof found === 'string' && found !== '' ? found : undefined;
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function createVerifier(config: ProviderConfig, clock: Clock): Verifier {
  const { secrets } = config;
  switch (config.scheme) {
    case 'stripe':
      return (rawBody, headers) =>
        verifyStripeSignature({
          rawBody,
          signatureHeader: singleHeader(headers['stripe-signature']),
          secrets,
          clock,
        });
    case 'svix':
      return (rawBody, headers) => verifySvixSignature({ rawBody, headers, secrets, clock });
    case 'standard-webhooks':
      return (rawBody, headers) => verifyStandardWebhook({ rawBody, headers, secrets, clock });
    case 'preset': {
      const preset = config.preset === undefined ? undefined : webhookPreset(config.preset);
      if (!preset) throw new TypeError(`provider ${config.name}: unknown preset ${String(config.preset)}`);
      return (rawBody, headers) => preset.verify({ rawBody, headers, secrets, clock, url: config.url });
    }
    case 'hmac-sha256': {
      // A batch has no id of its own (its items do); a single event's id is read from `idField`.
      const idField = config.idField;
      const eventIdFrom = config.batch ? () => 'batch' : (payload: unknown) => stringField(payload, idField);
      return (rawBody, headers) =>
        verifyHmacSha256({
          rawBody,
          headers,
          secrets,
          clock,
          signatureHeaderName: config.signatureHeader,
          timestampHeaderName: config.timestampHeader,
          eventIdFrom,
        });
    }
  }
}

/** Turns a type filter into a membership test (`undefined` set = every type). */
function handledTypes(config: ProviderConfig): ReadonlySet<string> | undefined {
  return config.eventTypes.kind === 'all' ? undefined : new Set(config.eventTypes.types);
}

/**
 * Builds the endpoint of one switched-on provider. Its secrets are checked here, at boot: a secret the provider
 * library cannot decode is a configuration error, not a stream of 400s.
 *
 * @throws TypeError naming the provider when a secret is unusable.
 */
export function createProviderEndpoint(config: ProviderConfig, clock: Clock): ProviderEndpoint {
  const verify = createVerifier(config, clock);
  try {
    verify(Buffer.alloc(0), {});
  } catch (error) {
    throw new TypeError(`provider ${config.name}: ${(error as Error).message}`);
  }
  const handled = handledTypes(config);
  const isHandled = (type: string): boolean => handled === undefined || handled.has(type);
  const { typeField, idField, batch } = config;

  /** A preset read the id and type where its provider puts them, and says which bytes to store. */
  const extractPreset = (verified: VerificationSuccess): ExtractedEvents => {
    const { type, storedBody, eventId } = verified as PresetVerificationSuccess;
    if (!isHandled(type)) return { handled: [], unhandledCount: 1, unusable: [] };
    return { handled: [{ eventId, type, data: storedBody }], unhandledCount: 0, unusable: [] };
  };

  const extractSingle = (verified: VerificationSuccess, rawBody: Buffer): ExtractedEvents => {
    const type = stringField(verified.payload, typeField);
    if (type === undefined)
      return { handled: [], unhandledCount: 0, unusable: [`no string "${typeField}" in the event`] };
    if (!isHandled(type)) return { handled: [], unhandledCount: 1, unusable: [] };
    return { handled: [{ eventId: verified.eventId, type, data: rawBody }], unhandledCount: 0, unusable: [] };
  };

  const extractBatch = (verified: VerificationSuccess, eventsField: string): ExtractedEvents => {
    const items =
      typeof verified.payload === 'object' && verified.payload !== null
        ? (verified.payload as Record<string, unknown>)[eventsField]
        : undefined;
    if (!Array.isArray(items))
      return { handled: [], unhandledCount: 0, unusable: [`"${eventsField}" is not an array`] };
    const result = { handled: [] as DeliveredEvent[], unhandledCount: 0, unusable: [] as string[] };
    items.forEach((item: unknown, index) => {
      const type = stringField(item, typeField);
      const eventId = stringField(item, idField);
      if (type === undefined || eventId === undefined) {
        result.unusable.push(`${eventsField}[${index}] has no string "${idField}" or "${typeField}"`);
      } else if (!isHandled(type)) {
        result.unhandledCount += 1;
      } else {
        result.handled.push({ eventId, type, data: Buffer.from(JSON.stringify(item)) });
      }
    });
    return result;
  };

  const keptNames = keptHeaderNames(config);
  return {
    name: config.name,
    verify,
    keptHeaders: (headers) => keptProviderHeaders(headers, keptNames),
    extract:
      config.scheme === 'preset'
        ? extractPreset
        : batch
          ? (verified) => extractBatch(verified, batch.eventsField)
          : extractSingle,
  };
}

/** Builds every switched-on provider's endpoint, by name. */
export function createProviderEndpoints(
  configs: readonly ProviderConfig[],
  clock: Clock,
): ReadonlyMap<string, ProviderEndpoint> {
  return new Map(configs.map((config) => [config.name, createProviderEndpoint(config, clock)]));
}
