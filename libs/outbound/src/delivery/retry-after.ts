/**
 * The delay a `Retry-After` header asks for, in milliseconds: either delta-seconds (`"120"`) or an HTTP-date
 * (`"Wed, 21 Oct 2026 07:28:00 GMT"`, counted from `now`; a date in the past gives 0).
 *
 * @returns undefined when the header is absent or not one of those two forms.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, at - now.getTime());
}
