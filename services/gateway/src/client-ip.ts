import type { IncomingMessage } from 'node:http';

/** Whose address a request counts against (rate limits, bodies read at once, log lines). */
export interface ClientIpOptions {
  /** Take the client IP from `X-Forwarded-For` (only behind a proxy that sets it). */
  readonly trustProxy: boolean;
  /** Proxies that each append an entry: the client IP is the entry this many places from the right (0: all). */
  readonly trustProxyHops: number;
}

/**
 * The request's client IP: without `trustProxy` the socket's peer; with it, the `X-Forwarded-For` entry
 * `trustProxyHops` places from the right (the one the outermost trusted proxy appended, never one the client wrote
 * left of it), or the leftmost when there are fewer entries, the peer when there are none. The same reading as
 * Koa's `ctx.ip` with `proxy` and `maxIpsCount`, which the other apps use.
 */
export function clientIp(request: IncomingMessage, options: ClientIpOptions): string {
  const header = options.trustProxy ? request.headers['x-forwarded-for'] : undefined;
  // Node joins repeated `X-Forwarded-For` lines with `, `; a hand-built header list may still hold an array.
  const forwarded = Array.isArray(header) ? header.join(',') : header;
  if (forwarded) {
    let entries = forwarded.split(',').map((entry) => entry.trim());
    if (options.trustProxyHops > 0) entries = entries.slice(-options.trustProxyHops);
    if (entries[0]) return entries[0];
  }
  return request.socket.remoteAddress ?? '';
}
