import { cidrContains, parseCidr, type Cidr } from './cidr';
import { parseIp, type ParsedIp } from './parse-ip';

/**
 * What kind of address an IP is, for the SSRF policy: only `public` is reachable by default. The special-purpose
 * ranges are those of the IANA IPv4 and IPv6 special-purpose registries that can carry a request somewhere it
 * must not go (the sender's own network, cloud metadata at 169.254.169.254, a carrier's NAT, a test network).
 */
export type AddressClass =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link-local'
  | 'cgnat'
  | 'multicast'
  | 'reserved'
  | 'unspecified'
  | 'unique-local'
  | 'site-local'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'invalid';

type Rule = readonly [range: Cidr, addressClass: AddressClass];

function rules(entries: ReadonlyArray<readonly [string, AddressClass]>): readonly Rule[] {
  return entries.map(([range, addressClass]) => [parseCidr(range), addressClass] as const);
}

/** First match wins, so narrower ranges come before the wider ones that contain them. */
const IPV4_RULES = rules([
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
]);

const IPV6_RULES = rules([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['100::/64', 'reserved'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:10::/28', 'reserved'],
  ['2001:20::/28', 'reserved'],
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'reserved'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['fc00::/7', 'unique-local'],
  ['ff00::/8', 'multicast'],
]);

const GLOBAL_UNICAST = parseCidr('2000::/3');
const MASK_32 = 0xffffffffn;

/**
 * IPv6 ranges that carry an IPv4 address inside, and where: a request to one of them reaches (or claims to reach)
 * that IPv4 address, so it is judged as that address. `whenPublic` is the class when the embedded address is public.
 */
const IPV4_CARRIERS: ReadonlyArray<{ range: Cidr; embedded: (value: bigint) => bigint; whenPublic: AddressClass }> = [
  // IPv4-mapped ::ffff:a.b.c.d: a dual-stack socket dials the IPv4 address itself.
  { range: parseCidr('::ffff:0:0/96'), embedded: (value) => value & MASK_32, whenPublic: 'public' },
  // IPv4-compatible ::a.b.c.d (deprecated): never routable as IPv6, but some stacks still translate it.
  { range: parseCidr('::/96'), embedded: (value) => value & MASK_32, whenPublic: 'reserved' },
  // NAT64 well-known prefix: the translator forwards to the embedded address.
  { range: parseCidr('64:ff9b::/96'), embedded: (value) => value & MASK_32, whenPublic: 'public' },
  // NAT64 local-use prefix: a translator inside someone's network, so never public.
  { range: parseCidr('64:ff9b:1::/48'), embedded: (value) => value & MASK_32, whenPublic: 'private' },
  // 6to4: the relay delivers to the IPv4 address in bits 16-47.
  { range: parseCidr('2002::/16'), embedded: (value) => (value >> 80n) & MASK_32, whenPublic: 'public' },
  // Teredo: the client's IPv4 address is the last 32 bits, inverted.
  { range: parseCidr('2001::/32'), embedded: (value) => (value & MASK_32) ^ MASK_32, whenPublic: 'public' },
];

/**
 * Classifies an IP address literal (IPv4, or IPv6 in any notation). IPv6 forms that wrap an IPv4 address
 * (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo) are judged by the address they wrap, so `::ffff:127.0.0.1`
 * or `64:ff9b::7f00:1` is `loopback`, not `public`. IPv6 outside the global unicast block 2000::/3 is `reserved`.
 *
 * @returns `invalid` for text that is not an IP address literal (never throws: a caller deciding whether to
 * connect treats it like any other refused address).
 */
export function classifyAddress(ip: string): AddressClass {
  const parsed = parseIp(ip);
  if (!parsed) return 'invalid';
  return parsed.version === 4 ? classifyParsed(parsed, IPV4_RULES) : classifyIpv6(parsed);
}

function classifyIpv6(ip: ParsedIp): AddressClass {
  const direct = firstMatch(ip, IPV6_RULES);
  if (direct) return direct;
  for (const carrier of IPV4_CARRIERS) {
    if (!cidrContains(carrier.range, ip)) continue;
    const inner = classifyParsed({ version: 4, value: carrier.embedded(ip.value) }, IPV4_RULES);
    return inner === 'public' ? carrier.whenPublic : inner;
  }
  return cidrContains(GLOBAL_UNICAST, ip) ? 'public' : 'reserved';
}

function classifyParsed(ip: ParsedIp, table: readonly Rule[]): AddressClass {
  return firstMatch(ip, table) ?? 'public';
}

function firstMatch(ip: ParsedIp, table: readonly Rule[]): AddressClass | undefined {
  return table.find(([range]) => cidrContains(range, ip))?.[1];
}
