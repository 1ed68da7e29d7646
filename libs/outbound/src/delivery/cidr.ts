import { parseIp, type ParsedIp } from './parse-ip';

/** An address range, `base/prefix`, of one IP version. */
export interface Cidr {
  readonly version: 4 | 6;
  readonly base: bigint;
  readonly prefix: number;
  /** The text it was parsed from, for messages. */
  readonly text: string;
}

/**
 * Parses `"10.0.0.0/8"`, `"::1/128"` or a bare address (a single-address range).
 *
 * @throws RangeError for anything else, or a prefix longer than the address: a typo in an allow-list must stop the
 * start, not silently allow nothing or everything.
 */
export function parseCidr(text: string): Cidr {
  const [address, prefixText, ...rest] = text.trim().split('/');
  const ip = parseIp(address ?? '');
  const bits = ip?.version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!ip || rest.length > 0 || !(prefix >= 0 && prefix <= bits))
    throw new RangeError(`not a CIDR range: ${JSON.stringify(text)}`);
  return { version: ip.version, base: ip.value, prefix, text };
}

/** Whether `ip` lies in `range` (never across IP versions). */
export function cidrContains(range: Cidr, ip: ParsedIp): boolean {
  if (range.version !== ip.version) return false;
  const shift = BigInt((range.version === 4 ? 32 : 128) - range.prefix);
  return range.base >> shift === ip.value >> shift;
}
