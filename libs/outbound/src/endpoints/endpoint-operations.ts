import type { Clock } from '@berth/contract';
import type { OutboundCollections } from '../collections';

/** What the endpoint operations use. */
export interface EndpointOperationDependencies {
  collections: Pick<OutboundCollections, 'endpoints'>;
  /**
   * Time for the stored timestamps; the system clock by default.
   */
  clock?: Clock;
  /**
   * Called after an endpoint changed, to tell the dispatchers (see `announceEndpointChange`); they also reload on
   * their own every few seconds.
   */
  onChanged?: (endpointId: string) => Promise<void> | void;
}

/** Raised for an unknown endpoint id (the HTTP API answers 404). */
export class EndpointNotFoundError extends Error {
  constructor(readonly endpointId: string) {
    super(`No endpoint ${endpointId}`);
    this.name = 'EndpointNotFoundError';
  }
}

/** Raised for input an endpoint can't take (the HTTP API answers 400, the CLI exits 2). */
export class InvalidEndpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidEndpointError';
  }
}

/**
 * Checks an endpoint URL's form: `http:` or `https:`, a host, no credentials, no fragment, no space or control
 * character (the URL parser would drop a CR/LF silently, and the stored text is shown to operators). Where it points is
 * checked at every attempt instead (DNS can change after creation): see `createAddressPolicy`.
 */
export function assertEndpointUrl(url: string): void {
  if (/[\u0000-\u0020\u007f-\u009f]/.test(url))
    throw new InvalidEndpointError('the URL must not contain spaces or control characters');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidEndpointError(`not a URL: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new InvalidEndpointError('the URL must be http: or https:');
  if (parsed.username || parsed.password) throw new InvalidEndpointError('the URL must not carry credentials');
  if (parsed.hash) throw new InvalidEndpointError('the URL must not have a fragment');
  if (url.length > 2048) throw new InvalidEndpointError('the URL is longer than 2048 characters');
}

/** Checks a list of subscribed event types (empty: every type). */
export function assertEventTypes(eventTypes: readonly string[]): void {
  for (const type of eventTypes) {
    if (type !== '*' && !/^[A-Za-z0-9_.:-]{1,128}$/.test(type))
      throw new InvalidEndpointError(`not an event type: ${JSON.stringify(type)}`);
  }
}

/** Checks a rate limit: null, or a positive number of deliveries a second (at most 10 000). */
export function assertRateLimit(rateLimitPerSecond: number | null): void {
  if (rateLimitPerSecond === null) return;
  if (!Number.isFinite(rateLimitPerSecond) || rateLimitPerSecond <= 0 || rateLimitPerSecond > 10_000) {
    throw new InvalidEndpointError('rateLimitPerSecond must be a number above 0 and at most 10000, or null');
  }
}
