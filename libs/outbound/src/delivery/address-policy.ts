import { cidrContains, parseCidr } from './cidr';
import { classifyAddress, type AddressClass } from './classify-address';
import { parseIp, type ParsedIp } from './parse-ip';
import { DEFAULT_ALLOWED_PORTS, parsePortRange } from './port-ranges';

/** The verdict of an {@link AddressPolicy} on one IP address. */
export type AddressVerdict = { allowed: true } | { allowed: false; addressClass: AddressClass };

/** Decides which IP addresses and ports webhook deliveries may connect to. */
export interface AddressPolicy {
  allows(ip: string): AddressVerdict;
  /** Whether a delivery may connect to this TCP port. */
  allowsPort(port: number): boolean;
}

/** Options of {@link createAddressPolicy}. */
export interface AddressPolicyOptions {
  /**
   * Non-public ranges (CIDRs such as `"127.0.0.0/8"`, `"::1/128"`, or single addresses) deliveries may reach
   * anyway: tests with loopback receivers, or an operator whose customers' endpoints live on a private network.
   * Empty by default, so a fresh deployment cannot be aimed at its own network.
   */
  allowPrivateNetworks?: readonly string[];
  /**
   * Ports (`"443"`) and ranges (`"8000-8999"`) deliveries may connect to. Default 80 and 443: an endpoint URL such
   * as `http://host:6379/` or `:25` would otherwise make Berth speak HTTP to a database or mail server.
   */
  allowedPorts?: readonly string[];
}

/**
 * The SSRF policy of outbound deliveries: public addresses are allowed; every other class (see
 * {@link classifyAddress}) is refused unless it lies in an explicitly allowed range. An IPv4-mapped IPv6 address
 * matches an allowed IPv4 range as well, since the socket dials that IPv4 address.
 *
 * Only the allowed ports (80 and 443 unless configured) may be connected to.
 *
 * @throws RangeError when an allowed range is not a valid CIDR, or an allowed port not a port or port range.
 */
export function createAddressPolicy(options: AddressPolicyOptions = {}): AddressPolicy {
  const allowed = (options.allowPrivateNetworks ?? []).map(parseCidr);
  const ports = (options.allowedPorts ?? DEFAULT_ALLOWED_PORTS).map(parsePortRange);
  return Object.freeze({
    allowsPort(port: number): boolean {
      return ports.some((range) => port >= range.from && port <= range.to);
    },
    allows(ip: string): AddressVerdict {
      const addressClass = classifyAddress(ip);
      if (addressClass === 'public') return { allowed: true };
      if (addressClass !== 'invalid' && forms(ip).some((form) => allowed.some((range) => cidrContains(range, form))))
        return { allowed: true };
      return { allowed: false, addressClass };
    },
  });
}

/** The address itself and, for `::ffff:a.b.c.d`, the IPv4 address it maps. */
function forms(ip: string): ParsedIp[] {
  const parsed = parseIp(ip)!;
  const mapped = parsed.version === 6 && parsed.value >> 32n === 0xffffn;
  return mapped ? [parsed, { version: 4, value: parsed.value & 0xffffffffn }] : [parsed];
}
