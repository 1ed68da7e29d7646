import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { DeliveryTarget } from './delivery-target';

/** What the endpoint answered. */
export interface PinnedResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** At most the requested number of bytes of the body. */
  body: Buffer;
}

/** Options of {@link postPinned}. */
export interface PostPinnedOptions {
  target: DeliveryTarget;
  headers: Record<string, string>;
  body: string;
  maxResponseBytes: number;
  /** Aborts the exchange: before the response it rejects; after it, the body read so far is kept. */
  signal: AbortSignal;
  /** Root certificates replacing node's store for `https:` (see `DeliveryOptions.ca`). */
  ca?: string | readonly string[];
}

/**
 * POSTs the body to the target over a new connection to the address the target was checked with: the socket's
 * lookup answers with that address, so no second DNS resolution can swap it (DNS rebinding), while the URL's host
 * still names the `Host` header and the TLS server name. No redirect is followed (node's client never does), no
 * connection is pooled, and the body is read up to `maxResponseBytes`, then the connection is closed.
 */
export function postPinned(options: PostPinnedOptions): Promise<PinnedResponse> {
  const { target, signal, maxResponseBytes } = options;
  const request = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PinnedResponse>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      outcome();
      req.destroy();
    };
    const onAbort = (): void => settle(() => reject(new Error('no response before the deadline')));
    let onError = (error: Error): void => settle(() => reject(error));
    const req = request({
      method: 'POST',
      protocol: target.url.protocol,
      host: target.hostname,
      port: target.url.port || undefined,
      path: `${target.url.pathname}${target.url.search}`,
      headers: options.headers,
      agent: false,
      lookup: pinnedLookup(target.address, target.family),
      ...(options.ca === undefined ? {} : { ca: typeof options.ca === 'string' ? options.ca : [...options.ca] }),
    });
    req.on('error', (error) => onError(error));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let length = 0;
      const finish = (): void =>
        settle(() => {
          res.destroy();
          resolve({
            statusCode: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).subarray(0, maxResponseBytes),
          });
        });
      onError = finish;
      signal.removeEventListener('abort', onAbort);
      signal.addEventListener('abort', finish, { once: true });
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        length += chunk.length;
        if (length >= maxResponseBytes) finish();
      });
      res.on('end', finish);
      res.on('error', finish);
      res.on('close', finish);
      req.once('close', () => signal.removeEventListener('abort', finish));
    });
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    req.end(options.body);
  });
}

/** A socket lookup that always answers with the checked address, in either of the shapes node may ask for. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}
