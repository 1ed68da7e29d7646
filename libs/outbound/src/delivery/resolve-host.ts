import { lookup } from 'node:dns/promises';

/** Resolves a host name to every IP address it has. Injectable, so tests can point names at any address. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

/**
 * The system resolver (`getaddrinfo`, so /etc/hosts and the search domains apply as for any other program), every
 * address in the resolver's own order: delivery checks all of them and connects to one of those it checked.
 */
export const systemResolveHost: ResolveHost = async (hostname) => {
  const addresses = await lookup(hostname, { all: true, verbatim: true });
  return addresses.map((entry) => entry.address);
};
