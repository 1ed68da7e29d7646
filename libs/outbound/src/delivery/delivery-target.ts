import { isIP } from 'node:net';
import type { AddressPolicy } from './address-policy';
import type { ResolveHost } from './resolve-host';
import { effectivePort } from './port-ranges';

/** Where a delivery goes: the parsed URL and the one address, already checked, its connection must use. */
export interface DeliveryTarget {
  url: URL;
  /** The host name without IPv6 brackets, for the request's `host` (and so `Host` and TLS SNI). */
  hostname: string;
  address: string;
  family: 4 | 6;
}

/** Why no target could be chosen: `refused` can never change; `retry` (resolution failed) may. */
export type TargetProblem = { outcome: 'refused' | 'retry'; error: string; address?: string };

/**
 * Parses the endpoint URL and chooses the address to connect to: the literal IP, or the host name resolved once.
 * Every resolved address must pass the policy, not only the one used: a name that also points inside the network
 * is refused, whatever order a later resolution would return. So is a port the policy does not allow.
 */
export async function resolveDeliveryTarget(
  rawUrl: string,
  policy: AddressPolicy,
  resolve: ResolveHost,
): Promise<DeliveryTarget | TargetProblem> {
  const url = parseEndpointUrl(rawUrl);
  if (typeof url === 'string') return { outcome: 'refused', error: url };
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: string[];
  if (isIP(hostname)) {
    addresses = [hostname];
  } else {
    try {
      addresses = await resolve(hostname);
    } catch (error) {
      return { outcome: 'retry', error: `could not resolve ${hostname}: ${(error as Error).message}` };
    }
    if (addresses.length === 0) return { outcome: 'retry', error: `${hostname} resolves to no address` };
  }
  for (const address of addresses) {
    const verdict = policy.allows(address);
    if (!verdict.allowed) {
      const via = address === hostname ? '' : `${hostname} resolves to `;
      return {
        outcome: 'refused',
        address,
        error: `${via}${address}, which is not a public address (${verdict.addressClass}): deliveries only go to public addresses`,
      };
    }
  }
  const address = addresses[0]!;
  const port = effectivePort(url);
  if (!policy.allowsPort(port))
    return {
      outcome: 'refused',
      address,
      error: `port ${port} is not an allowed delivery port (OUTBOUND_ALLOWED_PORTS; 80 and 443 by default)`,
    };
  return { url, hostname, address, family: isIP(address) === 4 ? 4 : 6 };
}

/** The URL, or why it cannot be an endpoint. */
function parseEndpointUrl(rawUrl: string): URL | string {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return `not a valid URL: ${JSON.stringify(rawUrl)}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `only http and https endpoints are allowed, not ${url.protocol}`;
  if (url.username || url.password) return 'endpoint URLs must not carry credentials';
  if (!url.hostname) return 'endpoint URL has no host';
  return url;
}

/** Whether {@link resolveDeliveryTarget} found a target. */
export function isDeliveryTarget(value: DeliveryTarget | TargetProblem): value is DeliveryTarget {
  return 'url' in value;
}
