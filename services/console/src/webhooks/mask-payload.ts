/** Keys whose values are personal data in provider payloads (Stripe customers, Clerk users…). */
const PERSONAL_KEY =
  /(e-?mail|phone|name|address|line1|line2|city|postal|zip|birth|ssn|tax_?id|ip_?address|^ip$|last4|fingerprint|username|avatar|image_url|profile_image)/i;
const EMAIL = /[^\s@"]+@[^\s@"]+\.[^\s@"]+/g;
const MASK = '•••';

function maskValue(value: unknown, personal: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => maskValue(item, personal));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, maskValue(inner, personal || PERSONAL_KEY.test(key))]),
    );
  }
  if (typeof value === 'string') return personal ? MASK : value.replace(EMAIL, MASK);
  if (typeof value === 'number' && personal) return MASK;
  return value;
}

/**
 * The payload with personal data masked: every value under a key that names personal data (email, name, phone,
 * address, birth date, tax id, IP, card last 4…) and every e-mail address anywhere become `•••`; the structure,
 * ids, types, amounts and timestamps stay, which is what a diagnosis needs. A body that is not JSON is masked whole.
 */
export function maskPayload(payload: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return `${MASK} (${Buffer.byteLength(payload)} bytes, not JSON)`;
  }
  return JSON.stringify(maskValue(parsed, false), null, 2);
}

/** The payload as stored, pretty-printed when it is JSON. */
export function prettyPayload(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}
