import { isIPv4, isIPv6 } from 'node:net';

/** An IP address as a number: 32 bits for IPv4, 128 bits for IPv6. */
export interface ParsedIp {
  readonly version: 4 | 6;
  readonly value: bigint;
}

/**
 * Parses an IPv4 dotted quad or an IPv6 address (compressed, with an embedded dotted IPv4 tail, with a `%zone`
 * or in URL brackets) into a number, so ranges can be compared exactly. Validation is node's own `isIP`, the same
 * parser the socket layer uses, so what this accepts is what a connection would dial.
 *
 * @returns undefined for anything that is not an IP address literal.
 */
export function parseIp(text: string): ParsedIp | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (isIPv4(bare)) return { version: 4, value: ipv4Value(bare) };
  if (!isIPv6(bare)) return undefined;
  const withoutZone = bare.split('%')[0]!;
  return { version: 6, value: ipv6Value(withoutZone) };
}

function ipv4Value(text: string): bigint {
  return text.split('.').reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

function ipv6Value(text: string): bigint {
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const groups = (part: string | undefined): number[] => (part ? part.split(':').flatMap(hextets) : []);
  const left = groups(head);
  const right = groups(tail);
  const zeros = tail === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...zeros, ...right].reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

/** One group, or two for an embedded dotted IPv4 (`::ffff:1.2.3.4`). */
function hextets(group: string): number[] {
  if (!group.includes('.')) return [parseInt(group, 16)];
  const v4 = Number(ipv4Value(group));
  return [v4 >>> 16, v4 & 0xffff];
}
