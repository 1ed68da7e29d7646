import { readSingleHeader, type HeaderBag } from './input';

/** Stripe signs with `Stripe-Signature` alone; id and type are in the body. */
export const STRIPE_KEPT_HEADERS: readonly string[] = ['stripe-signature'];
/** Svix (Clerk, Resend, any Svix sender): id, timestamp and signature. */
export const SVIX_KEPT_HEADERS: readonly string[] = ['svix-id', 'svix-timestamp', 'svix-signature'];
/** Standard Webhooks: id, timestamp and signature. */
export const STANDARD_WEBHOOKS_KEPT_HEADERS: readonly string[] = [
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
];

/** Longest header value kept: these are ids, timestamps, topics and signatures, never bodies. */
const MAX_KEPT_HEADER_LENGTH = 1024;
/** Whether the text holds a C0 control or DEL: Node's HTTP parser refuses most already; none may reach a message header. */
function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * The provider's own request headers a handler gets with the event: of `names` (a scheme's small allow-list, lower
 * case: the headers it signs or identifies the event with, never cookies or authorization), those present exactly
 * once, non-empty, at most 1024 characters and free of control characters, keyed in lower case. Anything else is
 * left out rather than refused: the signature was verified already.
 */
export function keptProviderHeaders(headers: HeaderBag, names: readonly string[]): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of names) {
    const read = readSingleHeader(headers, name);
    if (read.kind !== 'ok' || read.value.length > MAX_KEPT_HEADER_LENGTH || hasControlCharacter(read.value)) continue;
    kept[name.toLowerCase()] = read.value;
  }
  return kept;
}
