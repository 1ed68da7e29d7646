import { MAX_JSON_NESTING_DEPTH, nestsDeeperThan } from './json-depth';

/**
 * Request headers as Node's `IncomingMessage.headers` gives them. Lookup is case-insensitive
 * so callers may also pass hand-built objects.
 */
export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Outcome of reading one header that must appear exactly once. */
export type HeaderRead = { kind: 'ok'; value: string } | { kind: 'missing' } | { kind: 'duplicate' };

/**
 * Reads a header that must appear exactly once. A repeated signature header is treated as
 * an attack or proxy bug rather than guessing which copy to trust.
 */
export function readSingleHeader(headers: HeaderBag, name: string): HeaderRead {
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    if (typeof value === 'string') values.push(value);
    else values.push(...value);
  }
  if (values.length > 1) return { kind: 'duplicate' };
  if (values.length === 0 || values[0] === '') return { kind: 'missing' };
  return { kind: 'ok', value: values[0] };
}

/** Holds no state between calls: every `decode` is a whole, non-streaming decode. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes the raw body as UTF-8, rejecting invalid sequences and keeping a BOM, so the text
 * handed to a provider library maps one-to-one onto the bytes that were signed. Lenient
 * decoding would turn different byte strings into the same text (and the same signature).
 */
export function decodeUtf8Strict(rawBody: Buffer | string): string | undefined {
  if (typeof rawBody === 'string') return /\p{Cs}/u.test(rawBody) ? undefined : rawBody;
  try {
    return strictUtf8.decode(rawBody);
  } catch {
    return undefined;
  }
}

/**
 * Parses JSON without throwing; only ever called on an already-verified body. JSON nested deeper than
 * {@link MAX_JSON_NESTING_DEPTH} is refused like text that is not JSON: it would make every later
 * `JSON.stringify` (and MongoDB) fail on it for ever.
 */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (nestsDeeperThan(text, MAX_JSON_NESTING_DEPTH)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Returns `payload.id` when it is a non-empty string (Stripe events, most generic senders). */
export function topLevelId(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const id = (payload as { id?: unknown }).id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** Rejects an empty or blank secret list up front: a config error must not look like a bad signature. */
export function assertSecrets(secrets: readonly string[], scheme: string): void {
  if (secrets.length === 0) throw new TypeError(`${scheme}: at least one secret is required`);
  secrets.forEach((secret, index) => {
    if (typeof secret !== 'string' || secret.trim() === '') {
      throw new TypeError(`${scheme}: secrets[${index}] is empty`);
    }
  });
}
